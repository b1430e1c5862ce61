// The starter policy's choices, one by one: how annotations are read, how a schema is tightened, and that
// the whole file loads as a v2 policy.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { pinCatalog } from "../../../src/cli/pin/pinBlock.js";
import { starterKind, starterPolicyYaml, tightenSchema } from "../../../src/cli/policy/starterPolicy.js";

describe("starterKind", () => {
  it.each([
    [{ readOnlyHint: true }, "read-only"],
    [{ readOnlyHint: false, destructiveHint: false }, "write"],
    [{ readOnlyHint: false, destructiveHint: true }, "approval"],
    [undefined, "approval"],
    [{ openWorldHint: true }, "approval"],
  ] as const)("%j → %s", (annotations, kind) => {
    expect(starterKind({ name: "t", ...(annotations === undefined ? {} : { annotations }) }).kind).toBe(kind);
  });
});

describe("tightenSchema", () => {
  it("closes objects, bounds strings and lists, keeps what the server wrote", () => {
    expect(
      tightenSchema({
        type: "object",
        properties: {
          path: { type: "string", pattern: "^/" },
          mode: { type: "string", enum: ["a", "b"] },
          tags: { type: "array", items: { type: "string" } },
          meta: {
            type: "object",
            properties: { k: { type: "string", maxLength: 9 } },
            additionalProperties: true,
          },
        },
        required: ["path"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        path: { type: "string", pattern: "^/", maxLength: 4096, minLength: 1 },
        mode: { type: "string", enum: ["a", "b"] },
        tags: { type: "array", items: { type: "string", maxLength: 4096 }, maxItems: 256 },
        meta: {
          type: "object",
          properties: { k: { type: "string", maxLength: 9 } },
          additionalProperties: true,
          required: [],
        },
      },
      required: ["path"],
      additionalProperties: false,
    });
  });
});

describe("starterPolicyYaml", () => {
  it("loads as a v2 policy with no warning, also for a server with no tools", () => {
    const tools = [
      {
        name: "read",
        annotations: { readOnlyHint: true },
        inputSchema: { type: "object", properties: { p: { type: "string" } }, required: ["p"] },
      },
      { name: "wipe", inputSchema: { type: "object" } },
    ];
    for (const list of [tools, []]) {
      const text = starterPolicyYaml({
        server: "s 1.0",
        tools: list,
        pins: pinCatalog(list, new Map(), "s"),
      });
      const { policy, diagnostics } = loadPolicyText("p.yaml", text);
      expect(diagnostics).toEqual([]);
      expect(policy).not.toBeNull();
    }
  });
});
