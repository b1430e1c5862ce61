import { canonicalJson } from "../pins/canonicalJson.js";
import { sha256Hex } from "../pins/hashes.js";
import { isPlainObject } from "./argumentTargets.js";
import { approvalSignedText, signerOf } from "./approvalSignature.js";
import { canonicalResource } from "./resourceForm.js";
import { parseRfc3339 } from "./rfc3339.js";
import {
  APPROVAL_DIGEST_PROFILE,
  type ApprovalEvidence,
  type ApprovalKeyring,
  type ApprovalSummary,
} from "../model/approval.js";
import type { Principal } from "../model/principal.js";

/**
 * The approval artifact of the reference format (`_meta.approval`), checked without asking anyone.
 *
 * Fields (the reference gate's names; all strings):
 * - `approval_id`, `approver`, `issued_at`, `expires_at`, `bound_tool`: required.
 * - `bound_resource`: the resource the person approved. Required when the call names a resource (see
 *   callResources.ts); toolgate also accepts a list of strings, for a call that names several (a move's
 *   source and destination). The reference gate requires it always and so can never approve a call without
 *   a resource; toolgate accepts its absence exactly when the call names none.
 * - `bound_principal` (toolgate's): whose call it approves. A string names a static-token principal (its
 *   tokens-file entry; `stdio` for wrap's and serve --stdio's one client); `{iss, sub}` an OAuth principal
 *   by its issuer **and** subject (never the entry alone, which many subjects share). Absent: any caller's.
 * - `scope`: a free-text summary of what was approved; recorded, not enforced (as in the reference gate).
 * - Anything else is kept: it is part of the digest, not of the check.
 *
 * Valid when: `bound_tool` equals the tool name exactly; every resource the call names equals one the
 * artifact binds (both in canonical form: normalized paths, parsed URLs), and the artifact binds none when
 * the call names none; `issued_at` and `expires_at` are RFC 3339 date-times with an explicit offset,
 * `expires_at` after `issued_at`; `issued_at` is not more than APPROVAL_CLOCK_SKEW_MS ahead of `now` (the
 * issuer's clock may run a little fast); and `now` is before `expires_at` (no allowance: an expired
 * approval is expired).
 *
 * And it must be signed (approvalSignature.ts) with a key of the keyring the operator configured: the
 * reference format's artifacts are unsigned, and an unsigned artifact is written by whoever sends the call,
 * the model included, so it approves nothing. A signed one approves one call: the gateway spends its
 * `approval_id` (session/approvalClaims.ts).
 *
 * The digest (profile `assay.approval_artifact.structured_meta_jcs.v0`) is `sha256:` + the hex SHA-256 of
 * the RFC 8785 (JCS) form of the whole `_meta.approval` object as supplied: the retained structured basis
 * that the decision's summary fields are projected from. It is not proof of what a person saw.
 */

export const APPROVAL_CLOCK_SKEW_MS = 60_000;

export interface ApprovalArtifact {
  approvalId: string;
  approver: string;
  issuedAt: string;
  expiresAt: string;
  boundTool: string;
  /** Empty when the artifact binds no resource. */
  boundResources: string[];
  /** `bound_principal`; absent: the artifact approves a call of any principal. */
  boundPrincipal?: BoundPrincipal;
  scope?: string;
}

export type BoundPrincipal = string | { iss: string; sub: string };

export type ApprovalCheck =
  ({ ok: true } & ApprovalEvidence) | { ok: false; reason: string; digest?: string };

export interface ApprovalCall {
  tool: string;
  /** The resource(s) the call names, as callResources returns them; absent or empty: none. */
  resource?: string | readonly string[];
  now: Date;
  /** The keys an artifact must be signed with; absent or empty: no artifact approves. */
  keys?: ApprovalKeyring;
  /** Who makes the call; absent: unknown (an artifact bound to a principal then approves nothing). */
  principal?: Principal;
}

const REQUIRED = ["approval_id", "approver", "issued_at", "expires_at", "bound_tool"] as const;

export function parseApprovalArtifact(
  value: unknown,
): { ok: true; artifact: ApprovalArtifact; summary: ApprovalSummary } | { ok: false; reason: string } {
  if (!isPlainObject(value)) return { ok: false, reason: "the approval artifact is not a JSON object" };
  const fields: Record<string, string> = {};
  for (const name of REQUIRED) {
    const v = value[name];
    if (typeof v !== "string" || v === "") {
      return {
        ok: false,
        reason: `the approval artifact has no ${name} (a non-empty string is required)`,
      };
    }
    fields[name] = v;
  }
  const summary: ApprovalSummary = {
    approval_id: fields.approval_id!,
    approver: fields.approver!,
    issued_at: fields.issued_at!,
    expires_at: fields.expires_at!,
    bound_tool: fields.bound_tool!,
  };
  let boundResources: string[] = [];
  const bound = value.bound_resource;
  if (typeof bound === "string") {
    boundResources = [bound];
    summary.bound_resource = bound;
  } else if (Array.isArray(bound) && bound.length > 0 && bound.every((b) => typeof b === "string")) {
    boundResources = [...(bound as string[])];
    summary.bound_resource = [...(bound as string[])];
  } else if (bound !== undefined) {
    return {
      ok: false,
      reason: "the approval artifact's bound_resource must be a string or a non-empty list of strings",
    };
  }
  const artifact: ApprovalArtifact = {
    approvalId: summary.approval_id,
    approver: summary.approver,
    issuedAt: summary.issued_at,
    expiresAt: summary.expires_at,
    boundTool: summary.bound_tool,
    boundResources,
  };
  const principal = value.bound_principal;
  if (principal !== undefined) {
    if (typeof principal === "string" && principal !== "") artifact.boundPrincipal = principal;
    else if (
      isPlainObject(principal) &&
      typeof principal.iss === "string" &&
      principal.iss !== "" &&
      typeof principal.sub === "string" &&
      principal.sub !== ""
    )
      artifact.boundPrincipal = { iss: principal.iss, sub: principal.sub };
    else
      return {
        ok: false,
        reason:
          "the approval artifact's bound_principal must be a tokens-file entry's name or {iss, sub} of an OAuth principal",
      };
    summary.bound_principal = artifact.boundPrincipal;
  }
  if (value.scope !== undefined) {
    if (typeof value.scope !== "string") {
      return { ok: false, reason: "the approval artifact's scope must be a string" };
    }
    artifact.scope = value.scope;
    summary.scope = value.scope;
  }
  return { ok: true, artifact, summary };
}

/** `sha256:<hex>` of the artifact's RFC 8785 form. Throws ToolgateError `E_CANONICALIZE` when it has none. */
export function approvalDigest(artifact: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(artifact))}`;
}

export function checkApprovalArtifact(artifact: unknown, call: ApprovalCall): ApprovalCheck {
  const parsed = parseApprovalArtifact(artifact);
  if (!parsed.ok) return parsed;
  let digest: string;
  try {
    digest = approvalDigest(artifact);
  } catch (e) {
    return { ok: false, reason: `the approval artifact cannot be digested: ${(e as Error).message}` };
  }
  const keys = call.keys;
  if (keys === undefined || keys.size === 0) {
    return {
      ok: false,
      reason:
        "no approval keys are configured, so no artifact can approve a call (set TOOLGATE_APPROVAL_SECRET or give --approval-key)",
      digest,
    };
  }
  const signed = keys.verify(
    (artifact as Record<string, unknown>).signature,
    approvalSignedText(artifact as Record<string, unknown>),
  );
  if (signed !== null) {
    return { ok: false, reason: `the approval artifact does not approve: ${signed}`, digest };
  }
  const problem = artifactProblem(parsed.artifact, call);
  if (problem !== null) return { ok: false, reason: problem, digest };
  const signer = signerOf((artifact as Record<string, unknown>).signature);
  const summary = signer === undefined ? parsed.summary : { ...parsed.summary, signed_by: signer };
  return { ok: true, digest, profile: APPROVAL_DIGEST_PROFILE, summary };
}

function artifactProblem(a: ApprovalArtifact, call: ApprovalCall): string | null {
  const issued = parseRfc3339(a.issuedAt);
  if (issued === null) return `issued_at '${a.issuedAt}' is not an RFC 3339 date-time with an offset`;
  const expires = parseRfc3339(a.expiresAt);
  if (expires === null) return `expires_at '${a.expiresAt}' is not an RFC 3339 date-time with an offset`;
  if (expires <= issued) return `expires_at '${a.expiresAt}' is not after issued_at '${a.issuedAt}'`;
  const now = call.now.getTime();
  if (!Number.isFinite(now)) return "the current time is not a valid date";
  if (issued > now + APPROVAL_CLOCK_SKEW_MS) {
    return `the approval is issued in the future (issued_at '${a.issuedAt}', now ${call.now.toISOString()})`;
  }
  if (now >= expires) return `the approval expired at '${a.expiresAt}' (now ${call.now.toISOString()})`;

  if (a.boundTool !== call.tool) return `the approval is for tool '${a.boundTool}', not '${call.tool}'`;
  if (a.boundPrincipal !== undefined && !boundTo(a.boundPrincipal, call.principal)) {
    return `the approval is for the calls of ${describeBound(a.boundPrincipal)}, not of ${call.principal?.name ?? "an unknown caller"}`;
  }

  const wanted =
    call.resource === undefined
      ? []
      : typeof call.resource === "string"
        ? [call.resource]
        : [...call.resource];
  const bound = new Set(a.boundResources.map(canonicalResource));
  if (wanted.length === 0) {
    return bound.size === 0
      ? null
      : `the approval is bound to ${list(a.boundResources)} but the call names no resource`;
  }
  if (bound.size === 0) return `the approval binds no resource but the call names ${list(wanted)}`;
  for (const r of wanted) {
    if (!bound.has(canonicalResource(r))) {
      return `the approval is bound to ${list(a.boundResources)}, not '${r}'`;
    }
  }
  return null;
}

function boundTo(bound: BoundPrincipal, caller: Principal | undefined): boolean {
  if (caller === undefined) return false;
  if (typeof bound === "string") return caller.kind !== "oauth" && caller.entry === bound;
  return caller.kind === "oauth" && caller.issuer === bound.iss && caller.subject === bound.sub;
}

function describeBound(bound: BoundPrincipal): string {
  return typeof bound === "string" ? `'${bound}'` : `subject '${bound.sub}' at ${bound.iss}`;
}

function list(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(", ");
}

export type ApprovalLookup =
  | { kind: "none" }
  /** The artifact the call carries where a host puts it, `params._meta.approval`. */
  | { kind: "found"; artifact: unknown; source: "params._meta.approval"; alsoInArguments: boolean }
  /** Only inside the tool's arguments, which the model writes: stripped, recorded, never an approval. */
  | { kind: "in-arguments"; artifact: unknown };

/** Why an artifact inside `arguments` approves nothing (and what to do instead). */
export const IN_ARGUMENTS_PROBLEM =
  "an approval artifact inside the tool's arguments is written by the model and never approves; a host sends a signed artifact in params._meta.approval";

/**
 * Where a `tools/call` carries its artifact: `params._meta.approval` (the host's), and
 * `params.arguments._meta.approval` (the model's: found only to be stripped and recorded).
 */
export function findApprovalArtifact(params: unknown): ApprovalLookup {
  if (!isPlainObject(params)) return { kind: "none" };
  const top = isPlainObject(params._meta) ? params._meta.approval : undefined;
  const args = params.arguments;
  const inner = isPlainObject(args) && isPlainObject(args._meta) ? args._meta.approval : undefined;
  if (top !== undefined) {
    return {
      kind: "found",
      artifact: top,
      source: "params._meta.approval",
      alsoInArguments: inner !== undefined,
    };
  }
  return inner === undefined ? { kind: "none" } : { kind: "in-arguments", artifact: inner };
}

/**
 * `tools/call` params without the approval artifact, for forwarding: `_meta.approval` removed from the
 * params and from the arguments, and a `_meta` left empty by that removal dropped. Returns a copy (the
 * input is not changed); params without an artifact come back as they are.
 */
export function stripApproval<T>(params: T): T {
  if (!isPlainObject(params)) return params;
  let out: Record<string, unknown> = params;
  const meta = params._meta;
  if (isPlainObject(meta) && Object.hasOwn(meta, "approval")) {
    out = { ...out };
    const rest = withoutKey(meta, "approval");
    if (Object.keys(rest).length === 0) delete out._meta;
    else out._meta = rest;
  }
  const args = params.arguments;
  if (isPlainObject(args) && isPlainObject(args._meta) && Object.hasOwn(args._meta, "approval")) {
    if (out === params) out = { ...out };
    const argsCopy: Record<string, unknown> = { ...args };
    const rest = withoutKey(args._meta, "approval");
    if (Object.keys(rest).length === 0) delete argsCopy._meta;
    else argsCopy._meta = rest;
    out.arguments = argsCopy;
  }
  return out as T;
}

function withoutKey(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) {
    if (k === key) continue;
    if (k === "__proto__") {
      Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
    } else {
      out[k] = obj[k];
    }
  }
  return out;
}
