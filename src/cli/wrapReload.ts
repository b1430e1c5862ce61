import { configReloadEvent, recordReload, reloadRefusedLine, shortDigest } from "../audit/reloadEvent.js";
import type { AuditSink } from "../audit/sink.js";
import type { LogFields } from "../engine/model/logFields.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { ReloadableGate } from "../engine/policy/reloadableGate.js";
import { withCapturedErrors } from "./log/stderrLog.js";
import type { PlanRefusal, WrapPlan } from "./wrapConfigDir.js";

/** What a refused reload means: the policy in force goes on deciding. */
export const RELOAD_REFUSED: PlanRefusal = {
  consequence: "the policy in force stays",
  code: "E_RELOAD_REFUSED",
};

export interface WrapReloadDeps {
  /** Reads the policy (and configuration directory) again, as at start, printing every problem. */
  replan(refusal: PlanRefusal): WrapPlan | null;
  gate: ReloadableGate;
  audit: AuditSink | null;
  session: string;
  /** The new policy is in force: the client hears that the tools it may see changed. */
  announce(): void;
  /** The new plan's gate's self-test, before it is applied: [] passed (or none), else its problem lines. */
  selfTest?(plan: WrapPlan, gate: ToolGate): Promise<string[]>;
  log(line: string, fields?: LogFields): void;
}

/**
 * One reload of wrap's policy: read and checked as at start, its self-test run (when there is one); applied
 * between decisions when it is valid and its cases pass, refused (and the policy in force kept) when not.
 * Either way one line on stderr and one audit event.
 */
export async function reloadWrap(deps: WrapReloadDeps, trigger: string): Promise<void> {
  const oldDigest = deps.gate.gate.policyDigest;
  const { value: plan, errors } = withCapturedErrors(() => deps.replan(RELOAD_REFUSED));
  let next: ToolGate | null = null;
  if (plan !== null && errors.length === 0) {
    try {
      next = await plan.createGate();
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  // A policy that no longer decides what its cases say never goes live: the one in force stays.
  if (plan !== null && next !== null && deps.selfTest !== undefined) {
    const failed = await deps.selfTest(plan, next);
    if (failed.length > 0) {
      errors.push(...failed);
      next = null;
    }
  }
  if (next === null) {
    if (errors.length === 0) errors.push("the configuration could not be read (see the lines above)");
    deps.log(reloadRefusedLine(trigger, errors.length, `the policy in force (${shortDigest(oldDigest)})`), {
      code: "E_RELOAD_REFUSED",
    });
    recordReload(
      deps.audit,
      configReloadEvent({ session: deps.session, trigger, oldDigest, newDigest: null, errors }),
      deps.log,
    );
    return;
  }
  deps.gate.replace(next);
  deps.log(
    `configuration reloaded (${trigger}): policy ${shortDigest(oldDigest)} -> ${shortDigest(next.policyDigest)}`,
    { code: "I_CONFIG_RELOAD" },
  );
  recordReload(
    deps.audit,
    configReloadEvent({ session: deps.session, trigger, oldDigest, newDigest: next.policyDigest }),
    deps.log,
  );
  deps.announce();
}
