import { auditRule, type AuditRule } from "../audit/events.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { planObligations } from "../session/obligations.js";
import type { Outcome, RecordedCall } from "./records.js";

/**
 * One recorded call decided again under a candidate's gate, with the functions the gateway decides with
 * (session/callVerdict.ts): the name stage, then the call stage and its obligations.
 *
 * What the log does not hold is filled in the cautious way, and the docs say so (docs/changing-policies.md):
 * - the tool's definition: the name stage judges the bare name (a pinned tool is judged by name alone, and
 *   under `unpinned_tools: deny` an unpinned one is withheld), and the call stage finds path arguments from
 *   the policy's own schema only (the server's inputSchema is not recorded);
 * - the person: an approval the candidate asks for counts as given only when the recorded call was approved
 *   (by a person or an artifact); otherwise the call is refused with E_APPROVAL_REQUIRED.
 */
export interface Verdict {
  outcome: Outcome;
  code: string | null;
  rule: AuditRule | null;
}

/** `name-only`: the name stage admits the tool and the call stage cannot be decided (no arguments). */
export type Redecided = Verdict | "name-only";

/**
 * A candidate's gate for one server of the logs, with the name stage's verdict kept per tool: it depends on
 * the bare name alone, and a log names few tools many times.
 */
export class ServerRedecider {
  private readonly names = new Map<string, Verdict>();

  constructor(readonly gate: ToolGate) {}

  nameVerdict(tool: string): Verdict {
    let verdict = this.names.get(tool);
    if (verdict === undefined) this.names.set(tool, (verdict = nameVerdict(this.gate, tool)));
    return verdict;
  }

  call(call: RecordedCall, counters: SessionCounters): Redecided {
    return redecideCall(this.gate, call, counters, this.nameVerdict(call.tool));
  }
}

export function redecideCall(
  gate: ToolGate,
  call: RecordedCall,
  counters: SessionCounters,
  name: Verdict = nameVerdict(gate, call.tool),
): Redecided {
  if (name.outcome !== "allow") return name;
  if (call.args === undefined) return "name-only";
  const decision = gate.decideCall(call.tool, call.args.value, counters, {});
  if (decision.decision === "deny") {
    return { outcome: "deny", code: decision.code ?? "E_TOOL_DENIED", rule: auditRule(decision.rule) };
  }
  const plan = planObligations(decision, null);
  if (plan.kind === "refuse") return { outcome: "deny", code: plan.code, rule: auditRule(plan.rule) };
  if (plan.kind === "ask" && !call.approved) {
    return { outcome: "deny", code: "E_APPROVAL_REQUIRED", rule: auditRule(plan.rule) };
  }
  return { outcome: "allow", code: null, rule: auditRule(decision.rule) };
}

/** The name stage by the name alone: hidden, refused with the structured deny (`explain`), or visible. */
export function nameVerdict(gate: ToolGate, tool: string): Verdict {
  const verdict = gate.visibility({ name: tool }, { listed: false });
  if (verdict.visible) return { outcome: "allow", code: null, rule: auditRule(verdict.rule) };
  return {
    outcome: verdict.explain ? "deny" : "hidden",
    code: verdict.code ?? (verdict.explain ? "E_TOOL_NOT_ALLOWED" : null),
    rule: auditRule(verdict.rule),
  };
}
