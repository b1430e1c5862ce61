import type { ApprovalRecord } from "../audit/events.js";
import { approvalDigest, IN_ARGUMENTS_PROBLEM, type ApprovalLookup } from "../engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE, type ApprovalEvidence } from "../engine/model/approval.js";
import type { Rule } from "../engine/model/decision.js";
import type { ApprovalOutcome } from "./approvalQuestion.js";
import type { CallRedaction } from "./callRedaction.js";
import type { RejectedArtifact } from "./obligations.js";

/** The one wording of "this call needs a person's approval", in reasons, logs and the audit log. */
export function approvalRequiredText(tool: string, rule: Rule): string {
  return `tool '${tool}' requires approval (tools.approval_required '${rule.value}')`;
}

/** Why an approval question did not approve, as the refusal's reason ends. */
export function notApprovedText(
  outcome: Exclude<ApprovalOutcome, { approved: true }>["outcome"],
  timeoutMs: number,
): string {
  switch (outcome) {
    case "decline":
      return "the person declined";
    case "cancel":
      return "the person dismissed the question (cancel)";
    case "not-approved":
      return "the person accepted the form without approving";
    case "timeout":
      return `no answer came within ${Math.round(timeoutMs / 1000)} s (--approval-timeout)`;
    case "client-cancelled":
      return "the client cancelled the call while the person was being asked";
    case "error":
      return "asking the person failed";
  }
}

/**
 * The audit record of a call's approval: the artifact that came with it (accepted, rejected or not
 * checked), and what the person answered when asked. `undefined` when there is neither.
 */
export function approvalRecord(
  lookup: ApprovalLookup,
  checked: ApprovalEvidence | RejectedArtifact | undefined,
  elicitation: ApprovalRecord["elicitation"],
  redaction: CallRedaction,
): ApprovalRecord | undefined {
  const record: ApprovalRecord = {};
  if (lookup.kind === "in-arguments") {
    record.artifact = { accepted: false, source: "arguments._meta.approval", problem: IN_ARGUMENTS_PROBLEM };
    try {
      record.artifact.digest = approvalDigest(lookup.artifact);
      record.artifact.profile = APPROVAL_DIGEST_PROFILE;
    } catch {
      // No RFC 8785 form: recorded without a digest.
    }
  } else if (lookup.kind === "found") {
    if (checked !== undefined && "summary" in checked) {
      record.artifact = {
        accepted: true,
        source: lookup.source,
        digest: checked.digest,
        profile: checked.profile,
        // The artifact names what it approves (bound_resource: a path, a URL): written scrubbed like the call.
        summary: scrubbedSummary(checked.summary, redaction),
      };
    } else {
      const problem =
        checked === undefined
          ? "not checked: the call was decided before (or without) its approval step; the artifact was stripped"
          : redaction.scrub(checked.problem);
      let digest = checked?.digest;
      if (digest === undefined) {
        try {
          digest = approvalDigest(lookup.artifact);
        } catch {
          // No RFC 8785 form: recorded without a digest.
        }
      }
      record.artifact = { accepted: false, source: lookup.source, problem };
      if (digest !== undefined) {
        record.artifact.digest = digest;
        record.artifact.profile = APPROVAL_DIGEST_PROFILE;
      }
    }
  }
  if (lookup.kind === "found" && lookup.alsoInArguments && record.artifact !== undefined) {
    // The model's copy inside the arguments was stripped and had no say.
    record.artifact.also_in_arguments = true;
  }
  if (elicitation !== undefined) record.elicitation = elicitation;
  return record.artifact === undefined && record.elicitation === undefined ? undefined : record;
}

function scrubbedSummary(summary: object, redaction: CallRedaction): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(summary)) {
    out[key] =
      typeof value === "string"
        ? redaction.scrub(value)
        : Array.isArray(value)
          ? value.map((item: unknown) => (typeof item === "string" ? redaction.scrub(item) : item))
          : value;
  }
  return out;
}
