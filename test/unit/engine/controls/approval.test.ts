import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  APPROVAL_CLOCK_SKEW_MS,
  checkApprovalArtifact,
  findApprovalArtifact,
  stripApproval,
} from "../../../../src/engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../../../../src/engine/model/approval.js";
import { callResources } from "../../../../src/engine/controls/callResources.js";
import { parseRfc3339 } from "../../../../src/engine/controls/rfc3339.js";
import {
  approvalKeyring,
  hmacKeyId,
  SIGNED_PREFIX,
} from "../../../../src/engine/controls/approvalSignature.js";
import { signed, TEST_APPROVAL_SECRET, TEST_KEYS } from "../../../support/approvalKeys.js";
import { oauthPrincipal, tokenPrincipal } from "../../../../src/engine/model/principal.js";

const now = new Date("2026-05-01T12:00:00Z");
const artifact = {
  approval_id: "apr-1",
  approver: "alice@example.com",
  issued_at: "2026-05-01T11:55:00Z",
  expires_at: "2026-05-01T12:30:00Z",
  scope: "deploy v1.2 to prod",
  bound_tool: "deploy_release",
  bound_resource: "/workspace/releases/v1.2",
};
const call = { tool: "deploy_release", resource: ["/workspace/releases/v1.2"], now, keys: TEST_KEYS };
/** Checks the artifact signed with the test key: what is left to refuse is the artifact itself. */
const check = (a: unknown, c: Parameters<typeof checkApprovalArtifact>[1] = call) =>
  checkApprovalArtifact(
    typeof a === "object" && a !== null && !Array.isArray(a) ? signed(a as Record<string, unknown>) : a,
    c,
  );

describe("checkApprovalArtifact", () => {
  it("accepts a current signed artifact for this tool and resource, with the digest of its RFC 8785 form", () => {
    const s = signed(artifact);
    const r = checkApprovalArtifact(s, call);
    // The JCS text written out by hand: members in code-unit order, no whitespace; the signature included.
    const jcs =
      '{"approval_id":"apr-1","approver":"alice@example.com","bound_resource":"/workspace/releases/v1.2",' +
      '"bound_tool":"deploy_release","expires_at":"2026-05-01T12:30:00Z","issued_at":"2026-05-01T11:55:00Z",' +
      `"scope":"deploy v1.2 to prod","signature":{"alg":"HS256","key_id":"${s.signature.key_id}","value":"${s.signature.value}"}}`;
    expect(r).toEqual({
      ok: true,
      digest: `sha256:${createHash("sha256").update(jcs).digest("hex")}`,
      profile: APPROVAL_DIGEST_PROFILE,
      summary: { ...artifact, signed_by: { alg: "HS256", key_id: hmacKeyId(TEST_APPROVAL_SECRET) } },
    });
    expect(APPROVAL_DIGEST_PROFILE).toBe("assay.approval_artifact.structured_meta_jcs.v0");
  });

  it("the digest ignores member order and covers extra members", () => {
    const reordered = Object.fromEntries(Object.entries(artifact).reverse());
    const a = check(artifact);
    const b = check(reordered);
    const c = check({ ...artifact, ticket: "OPS-7" });
    expect(a.ok && b.ok && c.ok).toBe(true);
    expect(a.ok && b.ok && a.digest === b.digest).toBe(true);
    expect(a.ok && c.ok && a.digest !== c.digest).toBe(true);
  });

  it.each([
    [{ ...artifact, bound_tool: "deploy_release2" }, "not 'deploy_release'"],
    [{ ...artifact, bound_resource: "/workspace/releases/v1.3" }, "not '/workspace/releases/v1.2'"],
    [{ ...artifact, expires_at: "2026-05-01T12:00:00Z" }, "expired"],
    [{ ...artifact, expires_at: "2026-05-01T11:59:59.999Z" }, "expired"],
    [{ ...artifact, issued_at: "2026-05-01T12:01:00.001Z" }, "issued in the future"],
    [{ ...artifact, expires_at: "2026-05-01T11:55:00Z" }, "not after issued_at"],
    [{ ...artifact, issued_at: "2026-05-01 11:55:00Z" }, "RFC 3339"],
    [{ ...artifact, issued_at: "2026-05-01T11:55:00" }, "RFC 3339"],
    [{ ...artifact, expires_at: "tomorrow" }, "RFC 3339"],
    [{ ...artifact, approver: "" }, "no approver"],
    [{ ...artifact, approval_id: 7 }, "no approval_id"],
    [{ ...artifact, bound_resource: [] }, "bound_resource"],
    [{ ...artifact, bound_resource: 5 }, "bound_resource"],
    [{ ...artifact, scope: 5 }, "scope"],
    ["approved", "not a JSON object"],
    [null, "not a JSON object"],
  ])("refuses %j", (a, fragment) => {
    const r = check(a);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(fragment);
  });

  it("allows the issuer's clock to run up to a minute fast, no more", () => {
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(check({ ...artifact, issued_at: at(APPROVAL_CLOCK_SKEW_MS) }, call).ok).toBe(true);
    expect(check({ ...artifact, issued_at: at(APPROVAL_CLOCK_SKEW_MS + 1) }, call).ok).toBe(false);
  });

  it("compares resources in canonical form", () => {
    expect(check({ ...artifact, bound_resource: "/workspace/./releases//v1.2/" }, call).ok).toBe(true);
    expect(check({ ...artifact, bound_resource: "file:///workspace/releases/v1.2" }, call).ok).toBe(true);
    const url = { ...artifact, bound_resource: "HTTPS://Example.com/a/../b" };
    expect(check(url, { ...call, resource: "https://example.com/b" }).ok).toBe(true);
  });

  it("needs every resource of the call bound, and none bound when the call names none", () => {
    const two = { ...call, resource: ["/workspace/a", "/workspace/b"] };
    expect(check({ ...artifact, bound_resource: ["/workspace/a", "/workspace/b"] }, two).ok).toBe(true);
    expect(check({ ...artifact, bound_resource: ["/workspace/a"] }, two).ok).toBe(false);
    const none = { tool: "deploy_release", now, keys: TEST_KEYS };
    const unbound = { ...artifact } as Record<string, unknown>;
    delete unbound.bound_resource;
    expect(check(unbound, none).ok).toBe(true);
    expect(check(artifact, none)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("names no resource"),
    });
    expect(check(unbound, call)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("binds no resource"),
    });
  });

  it("reports the digest of an artifact it refuses, when it has one", () => {
    const r = check({ ...artifact, bound_tool: "other" }, call);
    expect(!r.ok && r.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("signed artifacts: nothing else approves", () => {
  const at = { ...call };
  it("an unsigned artifact, however well-formed, approves nothing", () => {
    expect(checkApprovalArtifact(artifact, at)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not signed"),
    });
  });

  it("no keys configured: no artifact approves, and the reason says how to configure them", () => {
    const r = checkApprovalArtifact(signed(artifact), { ...at, keys: approvalKeyring({}) });
    expect(r).toMatchObject({ ok: false, reason: expect.stringContaining("TOOLGATE_APPROVAL_SECRET") });
    expect(checkApprovalArtifact(signed(artifact), { tool: at.tool, resource: at.resource, now }).ok).toBe(
      false,
    );
  });

  it("both kinds of key approve; a changed field, another key or a mixed-up algorithm do not", () => {
    expect(checkApprovalArtifact(signed(artifact, "ed25519"), at).ok).toBe(true);
    const s = signed(artifact);
    expect(checkApprovalArtifact({ ...s, bound_resource: "/workspace/releases/v9" }, at)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("does not verify"),
    });
    const stranger = approvalKeyring({ hmacSecrets: ["another-secret-0123456789abcdefghijk"] });
    expect(checkApprovalArtifact(s, { ...at, keys: stranger })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("does not trust"),
    });
    const ed = signed(artifact, "ed25519");
    expect(checkApprovalArtifact({ ...ed, signature: { ...ed.signature, alg: "HS256" } }, at)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("does not trust"),
    });
    expect(checkApprovalArtifact({ ...s, signature: { ...s.signature, alg: "none" } }, at).ok).toBe(false);
    expect(checkApprovalArtifact({ ...s, signature: "forged" }, at).ok).toBe(false);
  });

  it("the signature covers a line naming what it is, then the artifact's canonical form", () => {
    expect(SIGNED_PREFIX).toBe("toolgate approval artifact v1\n");
  });

  it("refuses an HMAC secret a person could guess", () => {
    expect(() => approvalKeyring({ hmacSecrets: ["short"] })).toThrow(/at least 32/);
  });
});

describe("callResources", () => {
  it("collects path-like and resource-like arguments and _meta.resource, canonical and deduplicated", () => {
    expect(
      callResources({
        source: "/workspace/a/../b",
        destination: "/workspace/c",
        uri: "HTTPS://x.example/y",
        _meta: { resource: "/workspace/b" },
        title: "t",
      }),
    ).toEqual(["/workspace/b", "/workspace/c", "https://x.example/y"]);
    expect(callResources({ version: "1.2" })).toEqual([]);
    expect(callResources({ where: "/a", path: "/b" }, ["where"])).toEqual(["/a"]);
  });
});

describe("findApprovalArtifact and stripApproval", () => {
  it("takes the artifact from params._meta; one inside the arguments (the model's) is found only to be refused", () => {
    expect(findApprovalArtifact({ name: "t", _meta: { approval: artifact } })).toEqual({
      kind: "found",
      artifact,
      source: "params._meta.approval",
      alsoInArguments: false,
    });
    expect(findApprovalArtifact({ name: "t", arguments: { _meta: { approval: artifact } } })).toEqual({
      kind: "in-arguments",
      artifact,
    });
    expect(
      findApprovalArtifact({
        _meta: { approval: artifact },
        arguments: { _meta: { approval: { forged: 1 } } },
      }),
    ).toEqual({ kind: "found", artifact, source: "params._meta.approval", alsoInArguments: true });
    expect(findApprovalArtifact({ name: "t", arguments: {} })).toEqual({ kind: "none" });
    expect(findApprovalArtifact(null)).toEqual({ kind: "none" });
  });

  it("strips both places, drops a _meta it emptied, keeps other _meta members, never mutates", () => {
    const params = {
      name: "deploy_release",
      _meta: { approval: artifact, progressToken: 3 },
      arguments: { version: "1.2", _meta: { approval: artifact } },
    };
    const before = structuredClone(params);
    expect(stripApproval(params)).toEqual({
      name: "deploy_release",
      _meta: { progressToken: 3 },
      arguments: { version: "1.2" },
    });
    expect(params).toEqual(before);
    const plain = { name: "t", arguments: { a: 1 } };
    expect(stripApproval(plain)).toBe(plain);
    expect(stripApproval({ _meta: { approval: 1 } })).toEqual({});
  });
});

describe("parseRfc3339", () => {
  it.each([
    ["2026-05-01T12:00:00Z", Date.UTC(2026, 4, 1, 12)],
    ["2026-05-01t12:00:00z", Date.UTC(2026, 4, 1, 12)],
    ["2026-05-01T14:00:00+02:00", Date.UTC(2026, 4, 1, 12)],
    ["2026-05-01T11:30:00-00:30", Date.UTC(2026, 4, 1, 12)],
    ["2026-05-01T12:00:00.25Z", Date.UTC(2026, 4, 1, 12, 0, 0, 250)],
    ["2024-02-29T00:00:00Z", Date.UTC(2024, 1, 29)],
    ["2016-12-31T23:59:60Z", Date.UTC(2016, 11, 31, 23, 59, 59, 999)],
  ])("%s", (text, ms) => expect(parseRfc3339(text)).toBe(ms));
  it.each([
    "2025-02-29T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-05-01T24:00:00Z",
    "2026-05-01T12:00Z",
    "2026-05-01",
    "2026-05-01T12:00:00+2:00",
  ])("refuses %s", (text) => expect(parseRfc3339(text)).toBeNull());
});

describe("checkApprovalArtifact: bound_principal", () => {
  const ci = tokenPrincipal("ci");
  const aliceA = oauthPrincipal("team", "https://idp-a.example", "alice");
  const aliceB = oauthPrincipal("team", "https://idp-b.example", "alice");
  const bob = oauthPrincipal("team", "https://idp-a.example", "bob");

  it("a name binds a static-token principal: its calls only, never an OAuth entry of that name", () => {
    const bound = { ...artifact, bound_principal: "ci" };
    expect(check(bound, { ...call, principal: ci }).ok).toBe(true);
    expect(check(bound, { ...call, principal: tokenPrincipal("other") })).toMatchObject({
      ok: false,
      reason: "the approval is for the calls of 'ci', not of other",
    });
    expect(check(bound, { ...call, principal: oauthPrincipal("ci", "https://idp-a.example", "x") }).ok).toBe(
      false,
    );
    expect(check(bound, call)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("unknown caller"),
    });
  });

  it("{iss, sub} binds an OAuth principal by issuer and subject: not the same subject at another issuer", () => {
    const bound = { ...artifact, bound_principal: { iss: "https://idp-a.example", sub: "alice" } };
    const r = check(bound, { ...call, principal: aliceA });
    expect(r.ok).toBe(true);
    expect(r.ok && r.summary.bound_principal).toEqual({ iss: "https://idp-a.example", sub: "alice" });
    expect(check(bound, { ...call, principal: aliceB }).ok).toBe(false);
    expect(check(bound, { ...call, principal: bob }).ok).toBe(false);
    expect(check(bound, { ...call, principal: tokenPrincipal("alice") }).ok).toBe(false);
  });

  it("refuses a malformed bound_principal rather than ignoring it", () => {
    for (const bad of ["", 7, { iss: "https://idp-a.example" }, { sub: "alice" }, ["ci"]]) {
      expect(check({ ...artifact, bound_principal: bad }, { ...call, principal: ci })).toMatchObject({
        ok: false,
        reason: expect.stringContaining("bound_principal must be"),
      });
    }
  });
});
