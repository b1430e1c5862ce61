/** What an accepted approval artifact leaves in a decision (controls/approval.ts checks it). */

export const APPROVAL_DIGEST_PROFILE = "assay.approval_artifact.structured_meta_jcs.v0";

/** The artifact's fields as recorded with the decision (the reference format's names). */
export interface ApprovalSummary {
  approval_id: string;
  approver: string;
  issued_at: string;
  expires_at: string;
  bound_tool: string;
  bound_resource?: string | string[];
  scope?: string;
}

export interface ApprovalEvidence {
  /** `sha256:<hex>` over the artifact's RFC 8785 form. */
  digest: string;
  profile: typeof APPROVAL_DIGEST_PROFILE;
  summary: ApprovalSummary;
}
