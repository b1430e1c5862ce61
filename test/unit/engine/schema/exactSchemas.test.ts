// Schema keywords compare numbers exactly: a literal written in the policy beyond what a double holds, and
// an argument written so, are compared as the decimals they are. Each keyword refuses the neighbour.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import { decideCall } from "../../../../src/engine/policy/decide.js";

const decide = (schema: string, args: string) => {
  const loaded = loadPolicyText(
    "policy.yaml",
    `version: "2.0"\ntools:\n  allow: [t]\nschemas:\n  t:\n    type: object\n    properties:\n      n: ${schema}\n`,
  );
  if (loaded.policy === null) throw new Error(loaded.diagnostics.map((d) => d.message).join("; "));
  return decideCall(
    compilePolicy(loaded.policy),
    "t",
    { kind: "json", text: args },
    { requests: 0, toolCalls: 0 },
  );
};

const P = "9007199254740993"; // 2^53 + 1
const N = "9007199254740992"; // its neighbour, the same double

describe("exact number keywords", () => {
  it.each([
    ["{ enum: [9007199254740993] }", P, N, "must be one of 9007199254740993"],
    ["{ const: 9007199254740993 }", P, N, "must be 9007199254740993"],
    ["{ maximum: 9007199254740992 }", N, P, "must be <= 9007199254740992"],
    ["{ minimum: 9007199254740993 }", P, N, "must be >= 9007199254740993"],
    ["{ exclusiveMaximum: 9007199254740993 }", N, P, "must be < 9007199254740993"],
    ["{ exclusiveMinimum: 9007199254740992 }", P, N, "must be > 9007199254740992"],
    ["{ multipleOf: 2 }", "9007199254740994", P, "must be multiple of 2"],
    ["{ enum: [9223372036854775809] }", "9223372036854775809", "9223372036854775808", "must be one of"],
    ["{ maximum: 1e400 }", "1e399", "1e401", "must be <= 1e400"],
    [
      "{ type: integer, format: int64 }",
      "9223372036854775807",
      "9223372036854775808",
      'must match format "int64"',
    ],
  ])("%s admits %s and refuses its neighbour %s, quoting the literal", (schema, ok, refused, message) => {
    expect(decide(schema, `{"n":${ok}}`).decision).toBe("allow");
    const denied = decide(schema, `{"n":${refused}}`);
    expect(denied.decision).toBe("deny");
    expect(denied.code).toBe("E_ARG_SCHEMA");
    expect(denied.violations?.[0]?.message).toContain(message);
  });

  it("spellings of one value are one value: 1.0 and 1e0 pass enum [1], type integer, multipleOf 1", () => {
    for (const spelled of ["1", "1.0", "1e0", "10e-1"])
      expect(decide("{ type: integer, enum: [1], multipleOf: 1 }", `{"n":${spelled}}`).decision).toBe(
        "allow",
      );
    expect(decide("{ type: integer }", `{"n":1.0000000000000000001}`).decision).toBe("deny");
    expect(decide("{ type: array, uniqueItems: true }", `{"n":[1.5,1.50]}`).decision).toBe("deny");
    expect(decide("{ type: array, uniqueItems: true }", `{"n":[1.5e0,2.5]}`).decision).toBe("allow");
  });

  it("ordinary numbers take Ajv's own keywords, as before", () => {
    expect(decide("{ maximum: 10 }", `{"n":10}`).decision).toBe("allow");
    expect(decide("{ maximum: 10 }", `{"n":11}`).violations?.[0]?.message).toBe("must be <= 10");
    expect(decide("{ maximum: 10 }", `{"n":10.000000000000000001}`).decision).toBe("deny");
  });

  it("refuses toolgate's own keyword names in a policy", () => {
    const loaded = loadPolicyText(
      "policy.yaml",
      'version: "2.0"\ntools:\n  allow: [t]\nschemas:\n  t:\n    type: object\n    x-toolgate-maximum: "5"\n',
    );
    const decision = decideCall(
      compilePolicy(loaded.policy!),
      "t",
      { kind: "json", text: "{}" },
      { requests: 0, toolCalls: 0 },
    );
    expect(decision.code).toBe("E_SCHEMA_COMPILE");
    expect(decision.reason).toContain("is reserved");
  });
});
