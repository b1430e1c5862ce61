import type { Policy } from "../model/policy.js";
import type { CompiledPolicy } from "./compile.js";
import { decideName } from "./decide.js";
import type { ExtraLayer } from "./explain.js";
import { createPinStage } from "./pinStage.js";

/**
 * The policy file as one more layer after the whitelist layers (docs/design.md, our choices): its name rules hide (deny beats
 * allow; with an allowlist a tool must match it), so the info view shows it as `policy (<file>)` and a tool it
 * hides as `hidden by policy layer`. Pure.
 */

/** A loaded, compiled policy and the name it is shown under (the path as the user wrote it). */
export interface ActivePolicy {
  compiled: CompiledPolicy;
  /** The path as given on the command line or written in config.yaml. */
  shownPath: string;
}

export function policyLayerLabel(shownPath: string): string {
  return `policy (${shownPath})`;
}

/** True when the policy's name rules can hide anything (an allowlist, or at least one deny entry). */
export function policyHasNameRules(policy: Policy): boolean {
  return policy.tools.allow !== null || policy.tools.deny.length > 0;
}

/** `allow get_* | list_*; deny delete_*` — what the filter-layers header prints for the policy. */
export function policySummary(policy: Policy): string {
  const parts: string[] = [];
  const list = (entries: readonly { pattern: string }[]): string =>
    entries.length === 0 ? "[]" : entries.map((e) => e.pattern).join(" | ");
  if (policy.tools.allow !== null) parts.push(`allow ${list(policy.tools.allow)}`);
  if (policy.tools.deny.length > 0) parts.push(`deny ${list(policy.tools.deny)}`);
  return parts.length === 0 ? "(no tool name rules)" : parts.join("; ");
}

/**
 * The policy's name stage as an {@link ExtraLayer}. A ✓ row shows the `tools.allow` entry that admitted the
 * tool, or `*` when the policy has no allowlist (everything not denied is allowed).
 */
export function policyExtraLayer(active: ActivePolicy): ExtraLayer {
  const compiled = active.compiled;
  return {
    label: policyLayerLabel(active.shownPath),
    level: "policy",
    summary: policySummary(compiled.policy),
    judge(tool: string) {
      const outcome = decideName(compiled, tool);
      if (!outcome.allowed) return { allowed: false, matched: null };
      return { allowed: true, matched: compiled.allow === null ? "*" : (outcome.rule?.value ?? null) };
    },
  };
}

/** True when the policy's pins can withhold anything: pins, or unpinned tools denied. */
export function policyHasPins(policy: Policy): boolean {
  return policy.toolPins.length > 0 || policy.enforcement.unpinnedTools === "deny";
}

/**
 * The policy's pin stage as an {@link ExtraLayer} after the policy layer, so the verdict view withholds what
 * the gate withholds: a tool whose listed definition does not match its pin, or without one under
 * `unpinned_tools: deny`. Judged like the gate: a definition when the view has one, a bare name otherwise.
 */
export function pinExtraLayer(
  active: ActivePolicy,
  serverId: string,
  served: readonly string[] = [serverId],
): ExtraLayer {
  const policy = active.compiled.policy;
  const stage = createPinStage(policy, served);
  const pinned = policy.toolPins.length;
  return {
    label: `pins (${active.shownPath})`,
    level: "pins",
    summary: `${pinned} ${pinned === 1 ? "pin" : "pins"}; unpinned tools ${policy.enforcement.unpinnedTools === "deny" ? "withheld" : "allowed"}`,
    judge(tool, seen) {
      const withheld = stage(seen?.definition ?? { name: tool }, seen?.context, serverId);
      return withheld === null ? { allowed: true, matched: null } : { allowed: false, matched: null };
    },
    reason(tool, seen) {
      const withheld = stage(seen?.definition ?? { name: tool }, seen?.context, serverId);
      return withheld === null ? null : `${withheld.code}: ${withheld.reason}`;
    },
  };
}
