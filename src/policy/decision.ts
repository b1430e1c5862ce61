import type { SourceRef } from "../config/policyModel.js";
import type { ReasonCode } from "./reasonCodes.js";

/** The rule that decided: a policy entry, a whitelist layer's pattern, a limit, an enforcement setting. */
export interface Rule {
  /** `policy`, or a whitelist layer label such as `global (mcp.json)` / `role (reviewer)`. */
  layer: string;
  /** What kind of rule: `tools.deny`, `tools.allow`, `schemas`, `limits.max_tool_calls_total`, … */
  kind: string;
  /** The pattern, schema name or setting value that decided. */
  value: string;
  at?: SourceRef;
}

export interface Violation {
  /** JSON pointer into the arguments (`""` for the arguments object itself). */
  path: string;
  message: string;
}

export type Obligation =
  | { kind: "approval_required"; rule: Rule }
  | { kind: "restrict_scope"; rule: Rule }
  | { kind: "redact_args"; rule: Rule };

export interface Decision {
  decision: "allow" | "deny";
  code: ReasonCode | null;
  /** Codes raised without denying (e.g. `E_TOOL_UNCONSTRAINED` under `warn`). */
  warnings: ReasonCode[];
  tool: string;
  reason: string;
  rule: Rule | null;
  violations: Violation[];
  /** Controls attached to an allowed call; empty on a denial. */
  obligations: Obligation[];
}

/** Counts of what the session did before this call (limits compare against them). */
export interface SessionCounters {
  /** Client requests so far, excluding the handshake and `ping`, excluding this one. */
  requests: number;
  /** `tools/call` requests so far, excluding this one. */
  toolCalls: number;
}
