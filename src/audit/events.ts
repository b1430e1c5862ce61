import type { Rule } from "../policy/decision.js";

/**
 * Audit events, one JSON object per line. Field names are snake_case and stable: scripts read them. New
 * fields may be added (a hash chain, redaction marks); existing ones keep their meaning.
 */

/** What happened to a `tools/call`. `would-*`: `--dry-run`, the call was forwarded anyway. */
export type CallOutcome = "allow" | "deny" | "hidden" | "would-deny" | "would-hide";

/** The rule that decided, without its source position (the policy digest pins the file). */
export interface AuditRule {
  layer: string;
  kind: string;
  value: string;
}

interface EventBase {
  time: string;
  session: string;
  /** Hex SHA-256 of the policy in force; `null` without a policy file. */
  policy_digest: string | null;
  /** The JSON-RPC id of the client request this event is about. */
  request_id: string | number | null;
}

export interface ToolCallEvent extends EventBase {
  event: "tools/call";
  tool: string;
  decision: CallOutcome;
  code: string | null;
  rule: AuditRule | null;
  reason: string;
  /** Codes raised without denying, e.g. `E_TOOL_UNCONSTRAINED` under `warn`. */
  warnings: string[];
  /** SHA-256 of the RFC 8785 form of `arguments`; `null` when the call had none. Never the raw arguments. */
  args_sha256: string | null;
  /** Present (`false`) only when the arguments have no RFC 8785 form and `args_sha256` is over JSON.stringify. */
  args_canonical?: false;
}

export interface HiddenTool {
  tool: string;
  code: string | null;
  rule: AuditRule | null;
}

export interface ToolListEvent extends EventBase {
  event: "tools/list";
  /** `filtered`, or `would-filter` under `--dry-run` (everything was shown). */
  decision: "filtered" | "would-filter";
  shown: number;
  hidden: number;
  hidden_tools: HiddenTool[];
}

/** A client request other than `tools/call` refused (or, dry run, that would be) by a session limit. */
export interface RequestEvent extends EventBase {
  event: "request";
  method: string;
  decision: "deny" | "would-deny";
  code: string;
  rule: AuditRule | null;
  reason: string;
}

export type AuditEvent = ToolCallEvent | ToolListEvent | RequestEvent;

export function auditRule(rule: Rule | null): AuditRule | null {
  return rule === null ? null : { layer: rule.layer, kind: rule.kind, value: rule.value };
}
