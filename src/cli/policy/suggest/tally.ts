import type { AuditRule, CallOutcome } from "../../../audit/events.js";
import { compilePolicyWildcard } from "../../../engine/patterns/index.js";
import type { CallRecord } from "./calls.js";

/**
 * From the calls of a log to the suggestion: which tools go into `tools.allow`, which are only reported.
 * Pure.
 */

/** How many calls of one tool got one outcome. */
export interface OutcomeCount {
  decision: CallOutcome;
  code: string | null;
  rule: AuditRule | null;
  count: number;
}

export interface ToolUse {
  tool: string;
  calls: number;
  /** `time` of the first and last call, as recorded (ISO 8601 UTC, so they order as text). */
  first: string;
  last: string;
  /** In the order first seen. */
  outcomes: OutcomeCount[];
}

export interface Suggestion {
  /** The server the suggestion is for (serve's logs); `null` for a log of one wrapped server. */
  server: string | null;
  /** Calls counted (the selected server's). */
  calls: number;
  /** `tools.allow`, sorted by name. */
  allow: ToolUse[];
  /** Called, but hidden from the list by the name rules of the policy in force: reported, not allowed. */
  hidden: ToolUse[];
  /** Called and let through, but a tools.allow entry cannot name them exactly (a `*` first or last). */
  inexact: ToolUse[];
  /** The `policy_digest`s the counted calls were decided under, in the order first seen. */
  digests: Array<string | null>;
  /** serve: calls to a name no server has (`server: null`), which belong to no server's allowlist. */
  noServer: number;
}

export type ServerChoice =
  { ok: true; server: string | null } | { ok: false; problem: "several" | "unknown"; servers: string[] };

/**
 * The server to suggest for. A policy file's names are a server's own tool names, so one allowlist over two
 * servers' calls would allow each server the other's names: with several, `wanted` must pick one.
 */
export function chooseServer(calls: readonly CallRecord[], wanted: string | undefined): ServerChoice {
  const servers = [...new Set(calls.flatMap((c) => (typeof c.server === "string" ? [c.server] : [])))].sort(
    byCodeUnits,
  );
  if (wanted !== undefined) {
    return servers.includes(wanted)
      ? { ok: true, server: wanted }
      : { ok: false, problem: "unknown", servers };
  }
  if (servers.length > 1) return { ok: false, problem: "several", servers };
  return { ok: true, server: servers[0] ?? null };
}

/**
 * Codes of the name stage (tools.deny, the allowlist, a whitelist layer, a pin that no longer matches) that
 * `enforcement.denied_tools: explain` (or a drifted tool the client was shown before) records as a deny
 * instead of hiding the tool: the same refusal as `hidden`, so it is treated the same.
 */
const NAME_STAGE_CODES: readonly string[] = ["E_TOOL_DENIED", "E_TOOL_NOT_ALLOWED", "E_TOOL_DRIFT"];

/** The name stage refused this call: the tool was (or, in a dry run, would have been) kept from the client. */
export function hiddenByName(call: Pick<CallRecord, "decision" | "code">): boolean {
  // A dry run forwarded the call, and the policy's only objection was that no allow entry names it:
  // finding those tools is what a dry run before suggest is for. An enforced hide was never called.
  if (call.decision === "would-hide" && call.code === "E_TOOL_NOT_ALLOWED") return false;
  if (call.decision === "hidden" || call.decision === "would-hide") return true;
  return call.code !== null && NAME_STAGE_CODES.includes(call.code);
}

/**
 * The suggestion for `server`'s calls. A tool goes into `tools.allow` when it was called and none of its
 * calls was refused by name for a reason a person chose: a suggestion must never re-allow what a policy in
 * force deliberately hid (tools.deny, a layer, a pin, drift), nor a name the server does not have. Those
 * are reported for a person to decide. A tool a dry run forwarded that was only missing from the
 * allowlist goes in: it was really used.
 */
export function suggestFrom(calls: readonly CallRecord[], server: string | null): Suggestion {
  const uses = new Map<string, ToolUse>();
  const hidden = new Set<string>();
  const digests: Array<string | null> = [];
  let noServer = 0;
  let counted = 0;
  for (const call of calls) {
    if (server !== null && call.server !== server) {
      if (call.server === null) noServer++;
      continue;
    }
    counted++;
    if (!digests.includes(call.policyDigest)) digests.push(call.policyDigest);
    if (hiddenByName(call)) hidden.add(call.tool);
    count(uses, call);
  }
  const sorted = [...uses.values()].sort((a, b) => byCodeUnits(a.tool, b.tool));
  return {
    server,
    calls: counted,
    allow: sorted.filter((u) => !hidden.has(u.tool) && exactlyNamed(u.tool)),
    hidden: sorted.filter((u) => hidden.has(u.tool)),
    inexact: sorted.filter((u) => !hidden.has(u.tool) && !exactlyNamed(u.tool)),
    digests,
    noServer,
  };
}

function count(uses: Map<string, ToolUse>, call: CallRecord): void {
  let use = uses.get(call.tool);
  if (use === undefined) {
    use = { tool: call.tool, calls: 0, first: call.time, last: call.time, outcomes: [] };
    uses.set(call.tool, use);
  }
  use.calls++;
  if (call.time < use.first) use.first = call.time;
  if (call.time > use.last) use.last = call.time;
  const same = use.outcomes.find(
    (o) => o.decision === call.decision && o.code === call.code && sameRule(o.rule, call.rule),
  );
  if (same !== undefined) same.count++;
  else use.outcomes.push({ decision: call.decision, code: call.code, rule: call.rule, count: 1 });
}

function sameRule(a: AuditRule | null, b: AuditRule | null): boolean {
  if (a === null || b === null) return a === b;
  return a.layer === b.layer && a.kind === b.kind && a.value === b.value;
}

/**
 * A tools.allow entry is a five-form wildcard with no escape: a name with a `*` first or last would be read
 * as a prefix, suffix or substring pattern and allow more than the tool called.
 */
export function exactlyNamed(tool: string): boolean {
  const pattern = compilePolicyWildcard(tool);
  return pattern.form === "exact" && pattern.literal === tool;
}

/** Plain code-unit order: the same on every machine, whatever the locale. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
