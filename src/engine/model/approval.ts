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
  /** Whose call it approves: a tokens-file entry's name, or an OAuth principal's issuer and subject. */
  bound_principal?: string | { iss: string; sub: string };
  scope?: string;
  /** The key that signed it. */
  signed_by?: ApprovalSigner;
}

export interface ApprovalEvidence {
  /** `sha256:<hex>` over the artifact's RFC 8785 form. */
  digest: string;
  profile: typeof APPROVAL_DIGEST_PROFILE;
  summary: ApprovalSummary;
}

/**
 * The keys approval artifacts must be signed with (controls/approvalSignature.ts builds one). An artifact
 * approves only when it verifies against one of them: a model writes whatever it likes into a call, so an
 * unsigned artifact, or one signed with any other key, approves nothing.
 */
export interface ApprovalKeyring {
  /** How many keys it holds; 0: no artifact can approve (only a person can). */
  readonly size: number;
  /** `null` when `signature` is a valid signature of `signedText` by one of the keys; else why not. */
  verify(signature: unknown, signedText: string): string | null;
}

/** Which key signed an accepted artifact (recorded with the decision). */
export interface ApprovalSigner {
  alg: "HS256" | "EdDSA";
  key_id: string;
}
