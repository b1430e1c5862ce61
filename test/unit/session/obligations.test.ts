import { describe, expect, it } from "vitest";
import { planObligations, unmetObligation } from "../../../src/session/obligations.js";
import type { Decision, Obligation } from "../../../src/engine/model/decision.js";

const rule = (kind: string) => ({ layer: "policy", kind, value: "t" });
const allowed = (...obligations: Obligation[]): Decision => ({
  decision: "allow",
  code: null,
  warnings: [],
  tool: "t",
  reason: "allowed",
  rule: null,
  violations: [],
  obligations,
});
const evidence = {
  digest: "sha256:" + "a".repeat(64),
  profile: "assay.approval_artifact.structured_meta_jcs.v0" as const,
  summary: { approval_id: "1", approver: "a", issued_at: "x", expires_at: "y", bound_tool: "t" },
};

describe("planObligations", () => {
  it("forwards an enforced scope, a satisfied approval and redaction", () => {
    const plan = planObligations(
      allowed(
        {
          kind: "restrict_scope",
          rule: rule("tools.restrict_scope"),
          status: "enforced",
          checked: ["/path"],
        },
        {
          kind: "approval_required",
          rule: rule("tools.approval_required"),
          status: "satisfied",
          approval: evidence,
        },
        { kind: "redact_args", rule: rule("tools.redact_args") },
      ),
      null,
    );
    // The evidence goes on with the rule it satisfied (a spent artifact is refused under that rule).
    expect(plan).toEqual({
      kind: "forward",
      approval: { ...evidence, rule: rule("tools.approval_required") },
    });
  });

  it("asks for a pending approval when it can, refuses when it cannot", () => {
    const pending: Obligation = {
      kind: "approval_required",
      rule: rule("tools.approval_required"),
      status: "pending",
      artifactProblem: "expired",
      artifactDigest: "sha256:b",
    };
    expect(planObligations(allowed(pending), null)).toEqual({
      kind: "ask",
      rule: pending.rule,
      rejected: { problem: "expired", digest: "sha256:b" },
    });
    expect(planObligations(allowed(pending), "no UI")).toMatchObject({
      kind: "refuse",
      code: "E_APPROVAL_REQUIRED",
      reason: expect.stringContaining("approval artifact is not valid: expired"),
      artifactProblem: "expired",
      artifactDigest: "sha256:b",
    });
    const bare: Obligation = {
      kind: "approval_required",
      rule: rule("tools.approval_required"),
      status: "pending",
    };
    expect(planObligations(allowed(bare), "the client did not declare it")).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("no person can be asked: the client did not declare it"),
    });
  });

  it("fails closed on obligations without a status, and on kinds it does not know", () => {
    expect(
      planObligations(allowed({ kind: "restrict_scope", rule: rule("tools.restrict_scope") }), null),
    ).toMatchObject({
      kind: "refuse",
      code: "E_SCOPE_VIOLATION",
    });
    expect(
      planObligations(allowed({ kind: "approval_required", rule: rule("tools.approval_required") }), null),
    ).toMatchObject({ kind: "refuse", code: "E_APPROVAL_REQUIRED" });
    expect(
      planObligations(allowed({ kind: "mystery", rule: rule("x") } as unknown as Obligation), null),
    ).toMatchObject({ kind: "refuse" });
  });

  it("a refusal wins over a question", () => {
    const plan = planObligations(
      allowed(
        { kind: "approval_required", rule: rule("tools.approval_required"), status: "pending" },
        { kind: "restrict_scope", rule: rule("tools.restrict_scope") },
      ),
      null,
    );
    expect(plan.kind).toBe("refuse");
  });
});

describe("unmetObligation (gateways that cannot ask)", () => {
  it("treats a pending approval as unmet and an enforced scope as met", () => {
    expect(
      unmetObligation(allowed({ kind: "restrict_scope", rule: rule("s"), status: "enforced", checked: [] })),
    ).toBeNull();
    expect(
      unmetObligation(allowed({ kind: "approval_required", rule: rule("a"), status: "pending" })),
    ).toMatchObject({ code: "E_APPROVAL_REQUIRED" });
  });
});
