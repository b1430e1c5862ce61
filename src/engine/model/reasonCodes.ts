/** The reason codes of a decision (docs/design.md, two stages). Stable: scripts and clients match on them. */
export const REASON_CODES = [
  "E_TOOL_DENIED",
  "E_TOOL_NOT_ALLOWED",
  "E_ARG_SCHEMA",
  "E_SCHEMA_COMPILE",
  "E_TOOL_UNCONSTRAINED",
  "E_RATE_LIMIT",
  "E_TOOL_DRIFT",
  "E_APPROVAL_REQUIRED",
  "E_SCOPE_VIOLATION",
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];
