import type { Decision, Rule } from "../../policy/decision.js";

export interface RuleJson {
  layer: string;
  kind: string;
  value: string;
  file?: string;
  path?: string;
  line?: number;
  column?: number;
}

/** The JSON shape of a decision printed by `toolgate policy check` (documented in the README). */
export function decisionJson(d: Decision): Record<string, unknown> {
  return {
    decision: d.decision,
    code: d.code,
    warnings: d.warnings,
    tool: d.tool,
    reason: d.reason,
    rule: d.rule === null ? null : ruleJson(d.rule),
    violations: d.violations.map((v) => ({ path: v.path, message: v.message })),
    obligations: d.obligations.map((o) => ({ kind: o.kind, rule: ruleJson(o.rule) })),
  };
}

export function ruleJson(rule: Rule): RuleJson {
  const out: RuleJson = { layer: rule.layer, kind: rule.kind, value: rule.value };
  if (rule.at !== undefined) {
    out.file = rule.at.file;
    out.path = rule.at.path;
    out.line = rule.at.line;
    out.column = rule.at.column;
  }
  return out;
}
