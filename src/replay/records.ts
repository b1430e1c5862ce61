import { auditRuleOf, type AuditRule } from "../audit/events.js";
import { GATEWAY_REFUSAL_CODES } from "../engine/model/codes.js";
import { parseMetaToolName } from "../serve/naming.js";

/**
 * The events of an audit log that replay re-decides, read back as untrusted JSON: every field replay relies
 * on is checked, and an event without one is bad input naming its line rather than a guess.
 */

/** What a call or a tool came to: forwarded, refused with the structured deny, or not shown at all. */
export type Outcome = "allow" | "deny" | "hidden";

/** One recorded `tools/call` as replay needs it. */
export interface RecordedCall {
  kind: "call";
  /** serve: the server; `null` in wrap's logs (one server) and for a name no server has. */
  server: string | null;
  tool: string;
  principal: string;
  session: string;
  outcome: Outcome;
  code: string | null;
  rule: AuditRule | null;
  /** The arguments the call stage is re-decided with; absent: not recorded (name stage only). */
  args?: { value: unknown };
  /** A person or an artifact approved the call (an approval the candidate asks for is then given). */
  approved: boolean;
}

/** One recorded `tools/list`: only the tools it hid are named (the shown ones are only counted). */
export interface RecordedList {
  kind: "list";
  server: string | null;
  principal: string;
  session: string;
  hidden: { tool: string; code: string | null; rule: AuditRule | null }[];
}

export type Recorded = RecordedCall | RecordedList | null;

/** wrap's one client, as its principal is named (engine/model/principal.ts localPrincipal). */
export const WRAP_PRINCIPAL = "stdio";

/**
 * toolgate's own refusals and answers that no policy made: the tool is not in the server's catalog, the
 * catalog or the server was not there, the audit write failed. A candidate changes none of them.
 */
const NOT_THE_POLICY: ReadonlySet<string> = new Set(GATEWAY_REFUSAL_CODES);

/** The event's record for replay, `null` for an event replay does not re-decide, or what is wrong with it. */
export function recordOf(event: Record<string, unknown>): Recorded | string {
  if (event.event === "tools/call") return callOf(event);
  if (event.event === "tools/list") return listOf(event);
  return null;
}

function callOf(event: Record<string, unknown>): RecordedCall | null | string {
  // serve's meta mode: a describe or a search names a tool without calling it.
  if (event.via !== undefined) {
    const meta = typeof event.via === "string" ? parseMetaToolName(event.via) : null;
    if (meta?.kind !== "invoke") return null;
  }
  const where = located(event);
  if (typeof where === "string") return where;
  const { tool, decision, code } = event;
  if (typeof tool !== "string") return "a tools/call event whose `tool` is not a string";
  const outcome = outcomeOf(decision);
  if (outcome === undefined) {
    return "a tools/call event whose `decision` is not one of allow, deny, hidden, would-deny, would-hide";
  }
  if (code !== null && typeof code !== "string")
    return "a tools/call event whose `code` is not a string or null";
  const rule = auditRuleOf(event.rule);
  if (rule === undefined) return "a tools/call event whose `rule` is neither null nor {layer, kind, value}";
  if (code !== null && NOT_THE_POLICY.has(code)) return null;
  // Hidden with neither code nor rule: the tool is not in the server's catalog, which no policy changes.
  if (outcome === "hidden" && code === null && rule === null) return null;
  const call: RecordedCall = {
    kind: "call",
    server: where.server,
    principal: where.principal,
    session: where.session,
    tool,
    outcome,
    code,
    rule,
    approved: approvedIn(event),
  };
  const args = argumentsOf(event);
  if (typeof args === "string") return args;
  if (args !== undefined) call.args = args;
  return call;
}

function listOf(event: Record<string, unknown>): RecordedList | string {
  const where = located(event);
  if (typeof where === "string") return where;
  if (!Array.isArray(event.hidden_tools)) return "a tools/list event whose `hidden_tools` is not a list";
  const hidden: RecordedList["hidden"] = [];
  for (const item of event.hidden_tools as unknown[]) {
    const entry = item as Record<string, unknown> | null;
    const rule = typeof entry === "object" && entry !== null ? auditRuleOf(entry.rule) : undefined;
    if (entry === null || typeof entry.tool !== "string" || rule === undefined) {
      return "a tools/list event with a `hidden_tools` entry that is not {tool, code, rule}";
    }
    hidden.push({ tool: entry.tool, code: typeof entry.code === "string" ? entry.code : null, rule });
  }
  return { kind: "list", ...where, hidden };
}

function located(
  event: Record<string, unknown>,
): { server: string | null; principal: string; session: string } | string {
  const server = event.server ?? null;
  if (server !== null && typeof server !== "string")
    return "an event whose `server` is neither a string nor null";
  const principal = event.principal ?? event.client ?? WRAP_PRINCIPAL;
  if (typeof principal !== "string") return "an event whose `principal` is not a string";
  if (typeof event.session !== "string") return "an event whose `session` is not a string";
  return { server, principal, session: event.session };
}

/**
 * The arguments recorded: `args` (`--audit-args`) or `args_redacted` (a tool under redact_args); a call
 * with `args_sha256: null` had none, which is as good as recorded. `undefined`: not recorded.
 */
function argumentsOf(event: Record<string, unknown>): { value: unknown } | undefined | string {
  if (Object.hasOwn(event, "args")) return { value: event.args };
  if (Object.hasOwn(event, "args_redacted")) return { value: event.args_redacted };
  if (event.args_sha256 === null) return { value: undefined };
  if (typeof event.args_sha256 !== "string")
    return "a tools/call event whose `args_sha256` is neither a string nor null";
  return undefined;
}

function approvedIn(event: Record<string, unknown>): boolean {
  const approval = event.approval as
    { artifact?: { accepted?: unknown }; elicitation?: { outcome?: unknown } } | undefined;
  if (typeof approval !== "object" || approval === null) return false;
  return approval.artifact?.accepted === true || approval.elicitation?.outcome === "accept";
}

function outcomeOf(decision: unknown): Outcome | undefined {
  switch (decision) {
    case "allow":
      return "allow";
    case "deny":
    case "would-deny":
      return "deny";
    case "hidden":
    case "would-hide":
      return "hidden";
    default:
      return undefined;
  }
}
