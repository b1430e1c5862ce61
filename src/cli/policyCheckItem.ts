import type { CompiledPolicy } from "../engine/policy/compile.js";
import { decideItem, undecidedItem, type ItemDecision } from "../engine/policy/itemRules.js";
import { ruleJson } from "./render/decisionJson.js";

/**
 * `policy check --resource URI` / `--prompt NAME`: the decision of the policy's `resources:` / `prompts:`
 * section as the same JSON a tool decision prints (`decision`, `code`, `reason`, `rule`), with the
 * resource or prompt in place of the tool. A policy without the section allows (its rule says why).
 */
export function checkItem(
  compiled: CompiledPolicy,
  item: { resource: string } | { prompt: string },
): ItemDecision {
  if ("resource" in item) {
    return compiled.resources === null
      ? undecidedItem("resource", item.resource)
      : decideItem(compiled.resources, item.resource);
  }
  return compiled.prompts === null
    ? undecidedItem("prompt", item.prompt)
    : decideItem(compiled.prompts, item.prompt);
}

export function itemDecisionJson(d: ItemDecision): Record<string, unknown> {
  return {
    decision: d.decision,
    code: d.code,
    [d.kind]: d.name,
    reason: d.reason,
    rule: ruleJson(d.rule),
  };
}
