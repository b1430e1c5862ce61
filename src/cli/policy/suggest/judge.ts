import { compilePolicyWildcard } from "../../../engine/patterns/index.js";
import type { CompiledPolicy } from "../../../engine/policy/compile.js";
import { decideName } from "../../../engine/policy/decide.js";
import type { Rule } from "../../../engine/model/decision.js";
import { exposedName } from "../../../serve/naming.js";
import { byCodeUnits, type Suggestion } from "./tally.js";

/**
 * What a given policy (`--policy`) says about the tools of a log. Pure. By name only: the log holds the
 * arguments' digests, not the arguments, so what the policy's schemas, scopes, limits and approvals would
 * have refused cannot be said; that is stated with the report, not guessed.
 */

export interface NameRefusal {
  tool: string;
  calls: number;
  code: string;
  rule: Rule | null;
}

export interface PolicyJudgement {
  /** Tools called that the policy refuses by name, sorted. */
  refused: NameRefusal[];
  /**
   * Exact tools.allow entries the policy lets through that no call named, sorted; `null` when the policy has
   * no allowlist (every tool not denied is allowed, and which of those were never called cannot be listed).
   * Only exact entries: which names a wildcard stands for is the server's catalog's, not the log's.
   */
  neverCalled: string[] | null;
}

export function judgeNames(compiled: CompiledPolicy, suggestion: Suggestion): PolicyJudgement {
  const server = suggestion.server;
  const used = [...suggestion.allow, ...suggestion.hidden, ...suggestion.inexact].sort((a, b) =>
    byCodeUnits(a.tool, b.tool),
  );
  const refused: NameRefusal[] = [];
  for (const use of used) {
    // Through serve a deny entry may also be written with the name the client sees (`<server>__<tool>`).
    const name = decideName(compiled, use.tool, server === null ? undefined : exposedName(server, use.tool));
    if (name.allowed) continue;
    refused.push({ tool: use.tool, calls: use.calls, code: name.code ?? "E_TOOL_DENIED", rule: name.rule });
  }
  if (compiled.allow === null) return { refused, neverCalled: null };
  const called = new Set(used.map((u) => u.tool));
  const neverCalled = new Set<string>();
  for (const entry of compiled.policy.tools.allow ?? []) {
    const pattern = compilePolicyWildcard(entry.pattern);
    if (pattern.form !== "exact" || called.has(pattern.literal)) continue;
    const shownAs = server === null ? undefined : exposedName(server, pattern.literal);
    if (decideName(compiled, pattern.literal, shownAs).allowed) neverCalled.add(pattern.literal);
  }
  return { refused, neverCalled: [...neverCalled].sort(byCodeUnits) };
}
