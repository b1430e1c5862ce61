import type { ApprovalEvidence } from "../engine/model/approval.js";
import type { Decision, Rule } from "../engine/model/decision.js";
import type { ReasonCode } from "../engine/model/reasonCodes.js";

export interface UnmetObligation {
  code: ReasonCode;
  reason: string;
  rule: Rule;
  /** For `approval_required`: what was wrong with a supplied artifact, and its digest when it has one. */
  artifactProblem?: string;
  artifactDigest?: string;
}

/** A supplied artifact the decision did not accept, for the record. */
export interface RejectedArtifact {
  problem: string;
  digest?: string;
}

/**
 * What a gateway still has to do before forwarding an allowed call:
 * - `forward`: every obligation is met (scope enforced by the decision, approval satisfied by an artifact);
 * - `ask`: the call needs a person's explicit accept (MCP elicitation) first;
 * - `refuse`: an obligation cannot be met; deny with its code.
 * `redact_args` never holds a call up: it governs what is written about the call, not what is forwarded.
 */
export type ObligationPlan =
  | { kind: "forward"; approval?: ApprovalEvidence & { rule: Rule } }
  | { kind: "ask"; rule: Rule; rejected?: RejectedArtifact }
  | ({ kind: "refuse" } & UnmetObligation);

/**
 * The plan for an allowed decision. `cannotAsk`: `null` when the gateway can ask the client's person (the
 * client declared form-mode elicitation), else why it cannot (ends the reason of the refusal). Fails closed: an obligation without a `status` (from a decision function that
 * predates them) or of a kind this gateway does not know is unmet.
 */
export function planObligations(decision: Decision, cannotAsk: string | null): ObligationPlan {
  let approval: (ApprovalEvidence & { rule: Rule }) | undefined;
  let ask: { kind: "ask"; rule: Rule; rejected?: RejectedArtifact } | undefined;
  for (const obligation of decision.obligations) {
    switch (obligation.kind) {
      case "restrict_scope":
        if (obligation.status === "enforced") break;
        return {
          kind: "refuse",
          code: "E_SCOPE_VIOLATION",
          reason: `tool '${decision.tool}' is scope-restricted (tools.restrict_scope '${obligation.rule.value}') and the decision did not enforce the scope`,
          rule: obligation.rule,
        };
      case "approval_required": {
        if (obligation.status === "satisfied" && obligation.approval !== undefined) {
          approval = { ...obligation.approval, rule: obligation.rule };
          break;
        }
        const rejected: RejectedArtifact | undefined =
          obligation.artifactProblem === undefined
            ? undefined
            : {
                problem: obligation.artifactProblem,
                ...(obligation.artifactDigest === undefined ? {} : { digest: obligation.artifactDigest }),
              };
        if (obligation.status === "pending" && cannotAsk === null) {
          ask =
            rejected === undefined
              ? { kind: "ask", rule: obligation.rule }
              : { kind: "ask", rule: obligation.rule, rejected };
          break;
        }
        const required = `tool '${decision.tool}' requires approval (tools.approval_required '${obligation.rule.value}')`;
        const reason =
          obligation.status !== "pending"
            ? `${required} and the decision did not say whether it is approved`
            : rejected !== undefined
              ? `${required} and the approval artifact is not valid: ${rejected.problem}`
              : `${required}: the call carries no approval artifact (_meta.approval) and no person can be asked: ${cannotAsk}`;
        const unmet: { kind: "refuse" } & UnmetObligation = {
          kind: "refuse",
          code: "E_APPROVAL_REQUIRED",
          reason,
          rule: obligation.rule,
        };
        if (rejected !== undefined) {
          unmet.artifactProblem = rejected.problem;
          if (rejected.digest !== undefined) unmet.artifactDigest = rejected.digest;
        }
        return unmet;
      }
      case "redact_args":
        break;
      default:
        return {
          kind: "refuse",
          code: "E_TOOL_DENIED",
          reason: `tool '${decision.tool}' carries an obligation this gateway does not know`,
          rule: (obligation as { rule: Rule }).rule,
        };
    }
  }
  if (ask !== undefined) return ask;
  return approval === undefined ? { kind: "forward" } : { kind: "forward", approval };
}

/**
 * For a gateway that cannot ask a person: the obligation that stops this allowed call, or `null` when the
 * call may be forwarded (scope enforced, approval satisfied by a valid artifact).
 */
export function unmetObligation(
  decision: Decision,
  cannotAsk = "this gateway does not ask clients for approval",
): UnmetObligation | null {
  const plan = planObligations(decision, cannotAsk);
  if (plan.kind !== "refuse") return null;
  const { kind: _kind, ...unmet } = plan;
  return unmet;
}
