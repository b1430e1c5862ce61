import type { Decision, Obligation, Rule } from "../../engine/model/decision.js";

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
    obligations: d.obligations.map(obligationJson),
  };
}

/** An obligation with what the decision did about it (status, the artifact that approved, what scope checked). */
function obligationJson(o: Obligation): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: o.kind, rule: ruleJson(o.rule) };
  switch (o.kind) {
    case "approval_required":
      if (o.status !== undefined) out.status = o.status;
      if (o.approval !== undefined) out.approval = o.approval;
      if (o.artifactProblem !== undefined) out.artifact_problem = o.artifactProblem;
      if (o.artifactDigest !== undefined) out.artifact_digest = o.artifactDigest;
      break;
    case "restrict_scope":
      if (o.status !== undefined) out.status = o.status;
      if (o.checked !== undefined) out.checked = o.checked;
      break;
    case "redact_args":
      if (o.contract !== undefined) {
        const { redactionTarget, redactionMode, redactionScope, fields } = o.contract;
        out.contract = {
          redaction_target: redactionTarget,
          redaction_mode: redactionMode,
          redaction_scope: redactionScope,
          ...(fields === undefined ? {} : { fields }),
        };
      }
      break;
  }
  return out;
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
