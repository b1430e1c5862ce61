import type { Decision, Rule } from "../policy/decision.js";
import type { ReasonCode } from "../policy/reasonCodes.js";

export interface UnmetObligation {
  code: ReasonCode;
  reason: string;
  rule: Rule;
}

/**
 * Obligations attached to an allowed call that this proxy cannot fulfil yet. A control that cannot be
 * enforced must not turn into a log line (DESIGN §3), so the call is refused with the obligation's code.
 * `redact_args` needs nothing here: the audit log holds only a digest of the arguments.
 */
export function unmetObligation(decision: Decision): UnmetObligation | null {
  for (const obligation of decision.obligations) {
    switch (obligation.kind) {
      case "approval_required":
        return {
          code: "E_APPROVAL_REQUIRED",
          reason: `tool '${decision.tool}' requires approval (tools.approval_required '${obligation.rule.value}') and toolgate wrap cannot obtain one yet`,
          rule: obligation.rule,
        };
      case "restrict_scope":
        return {
          code: "E_SCOPE_VIOLATION",
          reason: `tool '${decision.tool}' is scope-restricted (tools.restrict_scope '${obligation.rule.value}') and toolgate wrap cannot enforce scopes yet`,
          rule: obligation.rule,
        };
      case "redact_args":
        break;
    }
  }
  return null;
}
