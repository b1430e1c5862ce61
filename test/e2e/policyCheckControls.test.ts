// `toolgate policy check` with the controls: approval artifacts (--approval, --now, --can-elicit), scope
// (with --input-schema), as a user runs it.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approvalDigest } from "../../src/engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../../src/engine/model/approval.js";
import { CLI, tempDir } from "./helpers.js";
import { signed, TEST_APPROVAL_SECRET, TEST_ED25519_PUBLIC_PEM } from "../support/approvalKeys.js";

const dir = tempDir("tg-check-");
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const policy = file(
  "policy.yaml",
  `version: "2.0"
tools:
  approval_required: ["deploy", "write_file"]
  restrict_scope: ["read_file", "write_file"]
  redact_args: ["write_file"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: /workspace, scope_match_mode: prefix }
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: sensitive_fields, fields: [content] }
enforcement: { unconstrained_tools: allow }
`,
);
const fields = {
  approval_id: "apr-7",
  approver: "alice@example.com",
  issued_at: "2026-03-01T10:00:00Z",
  expires_at: "2026-03-01T11:00:00Z",
  bound_tool: "deploy",
};
// Signed with the HMAC secret the checks run with (TOOLGATE_APPROVAL_SECRET), and with the Ed25519 key
// named by --approval-key.
const artifact = signed(fields);
const artifactFile = file("approval.json", JSON.stringify(artifact));
const publicKey = file("approver.pub.pem", TEST_ED25519_PUBLIC_PEM);

function check(...args: string[]): { code: number | null; out: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, "policy", "check", "--policy", policy, ...args], {
    encoding: "utf8",
    env: { ...process.env, TOOLGATE_APPROVAL_SECRET: TEST_APPROVAL_SECRET },
  });
  return {
    code: r.status,
    out: r.stdout === "" ? {} : (JSON.parse(r.stdout) as Record<string, unknown>),
    stderr: r.stderr,
  };
}

describe("policy check: approval", () => {
  it("denies a tool under approval_required without an artifact (no elicitation to fall back on)", () => {
    const r = check("--tool", "deploy");
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ decision: "deny", code: "E_APPROVAL_REQUIRED" });
  });

  it("allows with a current artifact and shows its digest and profile", () => {
    const r = check("--tool", "deploy", "--approval", artifactFile, "--now", "2026-03-01T10:30:00Z");
    expect(r.code).toBe(0);
    expect(r.out.obligations).toEqual([
      expect.objectContaining({
        kind: "approval_required",
        status: "satisfied",
        approval: expect.objectContaining({
          digest: approvalDigest(artifact),
          profile: APPROVAL_DIGEST_PROFILE,
        }),
      }),
    ]);
  });

  it.each([
    ["expired", ["--tool", "deploy", "--now", "2026-03-01T11:00:00Z"], "expired"],
    [
      "for another tool",
      [
        "--tool",
        "write_file",
        "--args",
        '{"path":"/workspace/a","content":"x"}',
        "--now",
        "2026-03-01T10:30:00Z",
      ],
      "is for tool 'deploy'",
    ],
  ])("denies an artifact %s", (_what, args, text) => {
    const r = check(...args, "--approval", artifactFile);
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ code: "E_APPROVAL_REQUIRED", reason: expect.stringContaining(text) });
  });

  it("checks signatures: an unsigned artifact approves nothing; an Ed25519 one needs --approval-key", () => {
    const unsigned = file("unsigned.json", JSON.stringify(fields));
    const at = ["--tool", "deploy", "--now", "2026-03-01T10:30:00Z"];
    expect(check(...at, "--approval", unsigned).out).toMatchObject({
      code: "E_APPROVAL_REQUIRED",
      reason: expect.stringContaining("not signed"),
    });
    const ed = file("ed.json", JSON.stringify(signed(fields, "ed25519")));
    expect(check(...at, "--approval", ed).out).toMatchObject({
      reason: expect.stringContaining("does not trust"),
    });
    expect(check(...at, "--approval", ed, "--approval-key", publicKey).code).toBe(0);
    expect(check(...at, "--approval", ed, "--approval-key", policy).code).toBe(2);
  });

  it("strips an artifact in arguments._meta.approval before the schema and scope steps; it never approves", () => {
    const args = JSON.stringify({
      path: "/workspace/a",
      content: "x",
      _meta: { approval: signed({ ...fields, bound_tool: "write_file", bound_resource: "/workspace/a" }) },
    });
    const r = check("--tool", "write_file", "--args", args, "--now", "2026-03-01T10:30:00Z");
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({
      code: "E_APPROVAL_REQUIRED",
      reason: expect.stringContaining("written by the model and never approves"),
    });
    const pending = check("--tool", "write_file", "--args", args, "--can-elicit");
    expect(pending.out.obligations).toEqual([
      expect.objectContaining({ kind: "approval_required", status: "pending" }),
      expect.objectContaining({ kind: "restrict_scope", status: "enforced", checked: ["/path"] }),
      expect.objectContaining({
        kind: "redact_args",
        contract: expect.objectContaining({ fields: ["content"] }),
      }),
    ]);
  });

  it("--can-elicit leaves the approval pending instead of denying", () => {
    const r = check("--tool", "deploy", "--can-elicit");
    expect(r.code).toBe(0);
    expect(r.out.obligations).toEqual([
      expect.objectContaining({ kind: "approval_required", status: "pending" }),
    ]);
  });

  it("refuses a --now that is not an RFC 3339 time with an offset, and an unreadable artifact", () => {
    expect(check("--tool", "deploy", "--now", "2026-03-01 10:30").code).toBe(2);
    expect(check("--tool", "deploy", "--approval", join(dir, "missing.json")).code).toBe(2);
    expect(check("--tool", "deploy", "--approval", file("bad.json", '{"a":1,"a":2}')).code).toBe(2);
  });
});

describe("policy check: scope", () => {
  it.each([["/workspace/../etc/passwd"], ["/workspace_evil/a"], ["/workspace/%2e%2e/etc/passwd"]])(
    "denies %s with E_SCOPE_VIOLATION",
    (path) => {
      const r = check("--tool", "read_file", "--args", JSON.stringify({ path }));
      expect(r.code).toBe(1);
      expect(r.out).toMatchObject({
        code: "E_SCOPE_VIOLATION",
        violations: [expect.objectContaining({ path: "/path" })],
      });
    },
  );

  it("allows a path inside and says what it checked", () => {
    const r = check("--tool", "read_file", "--args", '{"path":"/workspace/docs/a.md"}');
    expect(r.code).toBe(0);
    expect(r.out.obligations).toEqual([expect.objectContaining({ status: "enforced", checked: ["/path"] })]);
  });

  it("--input-schema names path arguments the default would not find", () => {
    const schema = file(
      "schema.json",
      JSON.stringify({ type: "object", properties: { target: { type: "string", format: "uri-reference" } } }),
    );
    // Without it, no argument is known to be a path: denied too (fail closed), but for finding none.
    expect(check("--tool", "read_file", "--args", '{"target":"/etc/passwd"}').out).toMatchObject({
      code: "E_SCOPE_VIOLATION",
      violations: [{ path: "", message: expect.stringContaining("no path argument") }],
    });
    const r = check("--tool", "read_file", "--args", '{"target":"/etc/passwd"}', "--input-schema", schema);
    expect(r.out).toMatchObject({
      code: "E_SCOPE_VIOLATION",
      violations: [expect.objectContaining({ path: "/target" })],
    });
  });
});
