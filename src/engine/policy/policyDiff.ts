import type { RealpathHook } from "../model/decision.js";
import type { NameVerdict } from "../model/gate.js";
import type { Policy } from "../model/policy.js";
import type { CompiledPolicy } from "./compile.js";
import type { DiffServer, Effect, PolicyChange, PolicyDiff, ToolChange, ToolDiff } from "./diffModel.js";
import { createPolicyGate } from "./policyGate.js";
import { callStageChanges, pinSides, type DiffSide } from "./toolDiff.js";

/**
 * `toolgate policy diff`: what changes for each tool of a catalog when policy `old` is replaced by `new`,
 * from the two policies alone. Each tool is put to both policies' gates (createPolicyGate, the object wrap
 * and serve decide with): the name stage first (visibility), then, for a tool both show, the call stage
 * (toolDiff.ts). Pure: the caller reads the files and the catalog.
 */

export interface PolicyDiffOptions {
  /**
   * Name each server's tools as serve does (`<server>__<tool>`), so a tools.deny entry written that way
   * counts: true for a catalog of configured servers (a catalog file), false for one wrapped command.
   */
  gatewayNames: boolean;
  /** Resolves symbolic links for `realpath: true` scopes, as the gateway on this machine would. */
  realpath?: RealpathHook;
  /** Argument objects tried per tool (default 1500). */
  maxTries?: number;
}

export function diffPolicies(
  old: CompiledPolicy,
  next: CompiledPolicy,
  catalog: readonly DiffServer[],
  options: PolicyDiffOptions,
): PolicyDiff {
  const servers = catalog.map((s) => s.name);
  const served: ReadonlySet<string> = new Set(servers);
  const tools: ToolDiff[] = [];
  let total = 0;
  for (const server of [...catalog].sort((a, b) => compare(a.name, b.name))) {
    const gateOptions = {
      serverId: server.name,
      servers,
      ...(options.gatewayNames ? { gatewayName: server.name } : {}),
    };
    const oldSide: DiffSide = { compiled: old, gate: createPolicyGate(old, gateOptions), served };
    const newSide: DiffSide = { compiled: next, gate: createPolicyGate(next, gateOptions), served };
    for (const tool of [...server.tools].sort((a, b) => compare(a.name, b.name))) {
      total++;
      const raw = server.rawSchemas?.get(tool.name);
      const context = { serverId: server.name, exactSchemaText: () => raw };
      const before = oldSide.gate.visibility(tool, context);
      const after = newSide.gate.visibility(tool, context);
      const changes: ToolChange[] = [];
      if (before.visible !== after.visible || (!before.visible && before.code !== after.code)) {
        const effect: Effect =
          before.visible === after.visible ? "changed" : after.visible ? "newly-allowed" : "newly-denied";
        changes.push({ kind: "visibility", effect, old: standing(before), new: standing(after) });
        const pinsOld = pinSides(oldSide, tool.name, server.name);
        const pinsNew = pinSides(newSide, tool.name, server.name);
        if (JSON.stringify(pinsOld) !== JSON.stringify(pinsNew) && (before.visible || after.visible)) {
          changes.push({ kind: "pins", effect: "changed", old: pinsOld, new: pinsNew });
        }
      } else if (before.visible) {
        changes.push(
          ...callStageChanges({
            server: server.name,
            tool,
            old: oldSide,
            new: newSide,
            maxTries: options.maxTries ?? 1500,
            ...(options.realpath === undefined ? {} : { realpath: options.realpath }),
          }),
        );
      }
      if (changes.length > 0) tools.push({ server: server.name, tool: tool.name, changes });
    }
  }
  return { tools, policy: policyChanges(old.policy, next.policy), unchanged: total - tools.length, total };
}

/** What the name stage says of a tool under one policy: shown or not, and the code and rule that decided. */
function standing(v: NameVerdict): Record<string, unknown> {
  return { visible: v.visible, code: v.code, rule: v.rule, reason: v.reason };
}

/** Settings that hold for every tool. Their effect on each tool is in the tools' changes already. */
function policyChanges(old: Policy, next: Policy): PolicyChange[] {
  const out: PolicyChange[] = [];
  const limit = (kind: string, a: number | undefined, b: number | undefined): void => {
    if (a === b) return;
    // No limit is the loosest; a lower one refuses calls the higher one allowed.
    const looser = b === undefined || (a !== undefined && b > a);
    out.push({ kind, effect: looser ? "newly-allowed" : "newly-denied", old: a ?? null, new: b ?? null });
  };
  limit("limits.max_tool_calls_total", old.limits.maxToolCallsTotal, next.limits.maxToolCallsTotal);
  limit("limits.max_requests_total", old.limits.maxRequestsTotal, next.limits.maxRequestsTotal);
  const setting = (kind: string, a: string, b: string): void => {
    if (a !== b) out.push({ kind, effect: "changed", old: a, new: b });
  };
  setting(
    "enforcement.unconstrained_tools",
    old.enforcement.unconstrainedTools,
    next.enforcement.unconstrainedTools,
  );
  setting("enforcement.denied_tools", old.enforcement.deniedTools, next.enforcement.deniedTools);
  setting("enforcement.unpinned_tools", old.enforcement.unpinnedTools, next.enforcement.unpinnedTools);
  // The catalog holds tools only: a change of these sections is named, not compared item by item.
  for (const key of ["resources", "prompts"] as const) {
    const a = itemRules(old[key]);
    const b = itemRules(next[key]);
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ kind: key, effect: "changed", old: a, new: b });
  }
  return out;
}

function itemRules(rules: Policy["resources"]): unknown {
  if (rules === undefined) return null;
  return { allow: rules.allow?.map((e) => e.pattern) ?? null, deny: rules.deny.map((e) => e.pattern) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
