import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../../src/engine/model/diagnostics.js";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import { approvalDigest } from "../../../../src/engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../../../../src/engine/model/approval.js";
import { signed, TEST_KEYS } from "../../../support/approvalKeys.js";
import { decideCall } from "../../../../src/engine/policy/decide.js";
import type { CallContext, Decision } from "../../../../src/engine/model/decision.js";

const policy = `version: "2.0"
tools:
  approval_required: ["deploy"]
  restrict_scope: ["write_file"]
  redact_args: ["write_file", "deploy"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: /workspace, scope_match_mode: prefix, realpath: true }
  redact_args_contract: { redaction_target: args, redaction_mode: hash, redaction_scope: sensitive_fields, fields: [content] }
enforcement:
  unconstrained_tools: allow
`;

function compiled() {
  const { policy: p, diagnostics } = loadPolicyText("controls.yaml", policy);
  if (p === null) throw new Error(diagnostics.map(formatDiagnostic).join("\n"));
  return compilePolicy(p);
}

const counters = { requests: 0, toolCalls: 0 };
const decide = (tool: string, args: unknown, context?: CallContext): Decision =>
  decideCall(compiled(), tool, { kind: "value", value: args }, counters, context);

const links: Record<string, string> = { "/workspace/etc": "/etc" };
const realpath = (p: string): string | null => {
  for (const [from, to] of Object.entries(links))
    if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
  return p.startsWith("/workspace") || p === "/" ? p : null;
};

describe("decideCall with controls", () => {
  it("an enforced scope says what it checked; redact_args carries its contract", () => {
    const d = decide("write_file", { path: "/workspace/a", content: "x" }, { realpath });
    expect(d.decision).toBe("allow");
    expect(d.obligations).toMatchObject([
      { kind: "restrict_scope", status: "enforced", checked: ["/path"] },
      { kind: "redact_args", contract: { redactionMode: "hash", fields: ["content"] } },
    ]);
  });

  it("uses the realpath hook the caller passes, and fails closed without one", () => {
    const viaLink = decide("write_file", { path: "/workspace/etc/passwd" }, { realpath });
    expect(viaLink).toMatchObject({ decision: "deny", code: "E_SCOPE_VIOLATION" });
    expect(viaLink.violations[0]!.message).toContain("resolves to '/etc/passwd'");
    const noHook = decide("write_file", { path: "/workspace/a" });
    expect(noHook).toMatchObject({ decision: "deny", code: "E_SCOPE_VIOLATION" });
  });

  it("a satisfied approval carries the signed artifact's digest, profile, summary and signer", () => {
    const fields = {
      approval_id: "a1",
      approver: "alice",
      issued_at: "2026-05-01T11:00:00Z",
      expires_at: "2026-05-01T13:00:00Z",
      bound_tool: "deploy",
    };
    const artifact = signed(fields);
    const d = decide(
      "deploy",
      { version: "2" },
      {
        approval: artifact,
        now: new Date("2026-05-01T12:00:00Z"),
        canElicit: false,
        approvalKeys: TEST_KEYS,
      },
    );
    expect(d.decision).toBe("allow");
    expect(d.obligations[0]).toEqual({
      kind: "approval_required",
      rule: expect.objectContaining({ kind: "tools.approval_required", value: "deploy" }),
      status: "satisfied",
      approval: {
        digest: approvalDigest(artifact),
        profile: APPROVAL_DIGEST_PROFILE,
        summary: { ...fields, signed_by: { alg: artifact.signature.alg, key_id: artifact.signature.key_id } },
      },
    });
  });

  it("a rejected artifact is recorded on the pending obligation", () => {
    const artifact = signed({
      approval_id: "a1",
      approver: "alice",
      issued_at: "x",
      expires_at: "y",
      bound_tool: "deploy",
    });
    const d = decide("deploy", {}, { approval: artifact, canElicit: true, approvalKeys: TEST_KEYS });
    expect(d.obligations[0]).toMatchObject({
      kind: "approval_required",
      status: "pending",
      artifactProblem: expect.stringContaining("RFC 3339"),
      artifactDigest: approvalDigest(artifact),
    });
  });

  it("an artifact conflict counts as invalid", () => {
    const d = decide("deploy", {}, { approvalProblem: "two different artifacts", canElicit: false });
    expect(d).toMatchObject({ decision: "deny", code: "E_APPROVAL_REQUIRED" });
    expect(d.reason).toContain("two different artifacts");
  });

  it("existing callers without a context keep their decisions", () => {
    expect(decide("deploy", {}).obligations.map((o) => o.kind)).toEqual(["approval_required", "redact_args"]);
    expect(decide("other", { path: "/etc" })).toMatchObject({ decision: "allow", obligations: [] });
  });
});

describe("a refusal before the approval step says the approval that would have followed", () => {
  const gated = `version: "2.0"
tools:
  allow: [write_file, read_file, loose]
  approval_required: [write_file, loose]
  restrict_scope: [write_file, read_file]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: /workspace, scope_match_mode: prefix }
schemas:
  write_file: { type: object, additionalProperties: false, required: [path, content], properties: { path: { type: string }, content: { type: string, maxLength: 4 } } }
  read_file: { type: object, additionalProperties: false, required: [path], properties: { path: { type: string } } }
enforcement:
  unconstrained_tools: deny
`;
  const c = () => {
    const { policy: p, diagnostics } = loadPolicyText("gated.yaml", gated);
    if (p === null) throw new Error(diagnostics.map(formatDiagnostic).join("\n"));
    return compilePolicy(p);
  };
  const decideGated = (tool: string, args: unknown): Decision =>
    decideCall(c(), tool, { kind: "value", value: args }, counters, { canElicit: true });
  const AHEAD =
    "; the call would also need a person's approval (tools.approval_required 'write_file'), and nobody was asked about a call refused before that step";

  it.each([
    [
      "the schema",
      { path: "/workspace/a", content: "12345" },
      "E_ARG_SCHEMA",
      "/content must NOT have more than 4 characters",
    ],
    ["arguments that are no object", [], "E_ARG_SCHEMA", "arguments must be an object, got an array"],
    [
      "the scope",
      { path: "/etc/passwd", content: "" },
      "E_SCOPE_VIOLATION",
      "/path \"/etc/passwd\" is '/etc/passwd', outside the scope '/workspace'",
    ],
  ] as const)(
    "refused by %s: the reason says both, and still nobody is asked",
    (_stage, args, code, first) => {
      const d = decideGated("write_file", args);
      expect(d).toMatchObject({ decision: "deny", code, obligations: [] });
      expect(d.reason).toBe(`${first}${AHEAD}`);
    },
  );

  it("a tool without a schema under unconstrained_tools: deny, too", () => {
    expect(decideGated("loose", {}).reason).toBe(
      "tool 'loose' has no schema and unconstrained tools are denied; the call would also need a person's approval (tools.approval_required 'loose'), and nobody was asked about a call refused before that step",
    );
  });

  it("a tool that needs no approval is refused as before; an admitted call goes on to the person", () => {
    expect(decideGated("read_file", { path: "/etc/passwd" }).reason).toBe(
      "/path \"/etc/passwd\" is '/etc/passwd', outside the scope '/workspace'",
    );
    const admitted = decideGated("write_file", { path: "/workspace/a", content: "" });
    expect(admitted.decision).toBe("allow");
    expect(admitted.obligations[0]).toMatchObject({ kind: "approval_required", status: "pending" });
  });
});
