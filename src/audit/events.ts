import type { Rule } from "../engine/model/decision.js";
import type { CheckpointPayload } from "./checkpoint.js";

/**
 * Audit events, one JSON object per line. Field names are snake_case and stable: scripts read them. New
 * fields may be added (redaction marks, …); existing ones keep their meaning.
 *
 * Every event carries `policy_digest`. The JSONL sink adds the chain fields (ChainFields) in front of the
 * event's own when it writes the line; the events built by wrap and serve never carry them.
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
  /** serve only: the upstream server the event is about (`null`: none, e.g. a name no server has). */
  server?: string | null;
  /** serve only: the client (the token's name over HTTP, `stdio` otherwise). */
  client?: string;
  /**
   * serve only: who the request was admitted as, which limits count for: the token's name, or for an OAuth
   * access token its principal entry and subject, `ci (ci-pipeline)`.
   */
  principal?: string;
  /** serve's meta-tool mode only: the meta tool the client called. */
  via?: string;
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
  /** Only for tools under `tools.redact_args`: the arguments as the policy's redaction contract leaves them. */
  args_redacted?: unknown;
  /**
   * Only with `--audit-args`, for a call with arguments to a tool not under `tools.redact_args` (those have
   * `args_redacted`): the arguments as toolgate may write them, secret-looking members masked
   * (callRedaction.ts). What `toolgate replay` re-decides the call with.
   */
  args?: unknown;
  /** Only for tools under `tools.approval_required` (and calls that carried an artifact): how it was approved. */
  approval?: ApprovalRecord;
}

/** How a call was approved, or why it was not. */
export interface ApprovalRecord {
  /** The artifact supplied with the call (`_meta.approval`, stripped before forwarding), when there was one. */
  artifact?: {
    accepted: boolean;
    source: "params._meta.approval" | "arguments._meta.approval";
    /** The call also carried an artifact inside its arguments (the model's): stripped, never considered. */
    also_in_arguments?: true;
    /** `sha256:<hex>` of its RFC 8785 form under `profile`; absent when it has none. */
    digest?: string;
    profile?: string;
    /** The artifact's own fields (approval_id, approver, issued_at, expires_at, bound_tool, …) when accepted. */
    summary?: Record<string, unknown>;
    /** Why it was not accepted. */
    problem?: string;
  };
  /** The person's answer when toolgate asked through MCP elicitation. */
  elicitation?: {
    outcome: "accept" | "decline" | "cancel" | "not-approved" | "timeout" | "error" | "client-cancelled";
    /** What went wrong, for `error` and `not-approved`; who denied it, for a denial in the dashboard. */
    detail?: string;
    /** Who approved it out of band (the dashboard's signed-in user), when not the client's own person. */
    approver?: string;
  };
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

/**
 * A request about one resource or prompt, under the policy's opt-in `resources:` / `prompts:` section
 * (`resources/read`, `resources/subscribe`, `prompts/get`, `completion/complete`). Not written without the
 * section. `hidden`: answered as the server answers an unknown resource or prompt, never forwarded.
 */
export interface ItemEvent extends EventBase {
  event: "resource" | "prompt";
  method: string;
  /** The resource's URI (or template) or the prompt's name, as the server knows it. */
  name: string;
  decision: "allow" | "hidden" | "would-hide";
  code: string | null;
  rule: AuditRule | null;
  reason: string;
}

export interface HiddenItem {
  name: string;
  code: string | null;
  rule: AuditRule | null;
}

/** A resource, resource template or prompt list answered under the policy's opt-in section. */
export interface ItemListEvent extends EventBase {
  event: "resources/list" | "resources/templates/list" | "prompts/list";
  /** `filtered`, or `would-filter` under `--dry-run` (everything was shown). */
  decision: "filtered" | "would-filter";
  shown: number;
  hidden: number;
  hidden_items: HiddenItem[];
}

/**
 * A configuration reload (SIGHUP, or a watched file changed): `applied` (from the next decision on), or
 * `refused` with why, and the configuration in force stays. `policy_digest` is the one in force after it.
 */
export interface ConfigReloadEvent extends EventBase {
  event: "config_reload";
  result: "applied" | "refused";
  /** `SIGHUP`, or the path of the file whose change set it off. */
  trigger: string;
  old_policy_digest: string | null;
  /** The policy the reload read; `null` when it had none or could not read one. */
  new_policy_digest: string | null;
  /** Refused: E_RELOAD_REFUSED. */
  code: string | null;
  /** Refused: every error that refused it, as printed on stderr. */
  errors?: string[];
}

/**
 * A signed checkpoint (checkpoint.ts), written with `--audit-signing-key` every N events or T seconds, at a
 * reload and at a clean shutdown. Only the JSONL log has them. `policy_digest` and `request_id` are null:
 * it is about the log, not a decision.
 */
export interface CheckpointEvent extends EventBase {
  event: "checkpoint";
  /** What made it: `events` (--checkpoint-every), `interval` (--checkpoint-interval), `reload`, `shutdown`. */
  trigger: CheckpointTrigger;
  checkpoint: CheckpointPayload;
  /** base64 Ed25519 signature over the checkpoint (checkpoint.ts). */
  signature: string;
}

export type CheckpointTrigger = "events" | "interval" | "reload" | "shutdown";

export type AuditEvent =
  | ToolCallEvent
  | ToolListEvent
  | RequestEvent
  | ItemEvent
  | ItemListEvent
  | ConfigReloadEvent
  | CheckpointEvent;

/**
 * The hash chain, written by JsonlFileSink as the first two members of each line (see chain.ts).
 * `seq` counts events from 1 across every run that appended to the file; `prev` is the hex SHA-256 of
 * the previous line's exact bytes (without its newline), or AUDIT_GENESIS for the first line.
 */
export interface ChainFields {
  seq: number;
  prev: string;
}

/** An event as it stands in a JSONL audit log. */
export type ChainedAuditEvent = AuditEvent & ChainFields;

export function auditRule(rule: Rule | null): AuditRule | null {
  return rule === null ? null : { layer: rule.layer, kind: rule.kind, value: rule.value };
}

/**
 * The rule of an event as a log holds it (replay and policy suggest read it); `undefined` when it has no
 * readable form.
 */
export function auditRuleOf(rule: unknown): AuditRule | null | undefined {
  if (rule === null) return null;
  if (typeof rule !== "object" || Array.isArray(rule) || rule === undefined) return undefined;
  const { layer, kind, value } = rule as Record<string, unknown>;
  if (typeof layer !== "string" || typeof kind !== "string" || typeof value !== "string") return undefined;
  return { layer, kind, value };
}
