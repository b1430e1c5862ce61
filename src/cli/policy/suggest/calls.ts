import { auditRuleOf, type AuditRule, type CallOutcome } from "../../../audit/events.js";
import { parseMetaToolName } from "../../../serve/naming.js";

/**
 * The `tools/call` events of an audit log that are calls, read from its lines. Pure: the lines come in
 * already parsed (and their chain already verified) by the command.
 *
 * The log is read back as untrusted JSON, not as the events toolgate writes: every field suggest relies on
 * is checked, and a `tools/call` event without one is bad input naming its line rather than a guess.
 */

/** One line of the log, parsed. */
export interface LogRecord {
  /** 1-based line number in the file. */
  line: number;
  event: Record<string, unknown>;
}

/** One call as suggest needs it. */
export interface CallRecord {
  line: number;
  tool: string;
  /** serve only: the server the call was to; `null` for a name no server has; absent in wrap's logs. */
  server?: string | null;
  decision: CallOutcome;
  code: string | null;
  rule: AuditRule | null;
  time: string;
  policyDigest: string | null;
}

export type CallsRead = { ok: true; calls: CallRecord[] } | { ok: false; line: number; problem: string };

const OUTCOMES: readonly string[] = ["allow", "deny", "hidden", "would-deny", "would-hide"];

/**
 * The calls among `records`, in file order. Only `tools/call` events count: lists and other requests name
 * no call. In serve's meta mode a `tools/call` event with `via` is a call only through the invoke meta tool;
 * a describe or a search asked about a tool without calling it.
 */
export function callsOf(records: Iterable<LogRecord>): CallsRead {
  const calls: CallRecord[] = [];
  for (const { line, event } of records) {
    if (event.event !== "tools/call") continue;
    if (event.via !== undefined) {
      const meta = typeof event.via === "string" ? parseMetaToolName(event.via) : null;
      if (meta?.kind !== "invoke") continue;
    }
    const read = callOf(line, event);
    if (typeof read === "string") return { ok: false, line, problem: read };
    calls.push(read);
  }
  return { ok: true, calls };
}

/** The call of one event, or what is wrong with it. */
function callOf(line: number, event: Record<string, unknown>): CallRecord | string {
  const { tool, decision, code, rule, time, policy_digest: digest } = event;
  if (typeof tool !== "string") return "a tools/call event whose `tool` is not a string";
  if (typeof decision !== "string" || !OUTCOMES.includes(decision)) {
    return `a tools/call event whose \`decision\` is not one of ${OUTCOMES.join(", ")}`;
  }
  if (code !== null && typeof code !== "string") {
    return "a tools/call event whose `code` is neither a string nor null";
  }
  const auditRule = auditRuleOf(rule);
  if (auditRule === undefined) {
    return "a tools/call event whose `rule` is neither null nor {layer, kind, value} strings";
  }
  if (typeof time !== "string") return "a tools/call event whose `time` is not a string";
  if (digest !== null && typeof digest !== "string") {
    return "a tools/call event whose `policy_digest` is neither a string nor null";
  }
  const call: CallRecord = {
    line,
    tool,
    decision: decision as CallOutcome,
    code,
    rule: auditRule,
    time,
    policyDigest: digest,
  };
  if (Object.hasOwn(event, "server")) {
    if (event.server !== null && typeof event.server !== "string") {
      return "a tools/call event whose `server` is neither a string nor null";
    }
    call.server = event.server;
  }
  return call;
}
