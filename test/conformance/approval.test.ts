// Conformance, on every surface: tools.approval_required, approved by the client's person through MCP
// elicitation, or by an approval artifact in _meta.approval (checked, recorded by digest, and stripped before
// forwarding) when the client cannot be asked. Against the real server-filesystem, whose every received call
// the recording shim notes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { approvalDigest } from "../../src/engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../../src/engine/model/approval.js";
import { denial, gates, legacyEra, SURFACES, type GateClient } from "./surfaces.js";
import { approvalKeyFile, artifact, fsWorld, signedArtifact, type FsWorld } from "./worlds.js";

const SECRET = "s3cr3t-VALUE-4242";
const POLICY = `version: "2.0"
tools:
  approval_required: ["write_file"]
  redact_args: ["write_file"]
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: sensitive_fields, fields: [content] }
enforcement: { unconstrained_tools: allow }
`;

let world: FsWorld;
beforeAll(() => {
  world = fsWorld();
});

describe.each(SURFACES)("%s", (surface) => {
  const start = gates();
  const file = (what: string) => join(world.workspace, `${what}-${surface}.txt`);

  describe("approval through MCP elicitation", () => {
    let answer: () => unknown;
    let c: GateClient;
    beforeAll(async () => {
      c = await start(surface, { server: world.server, name: "fs", policy: POLICY, elicit: () => answer() });
    });

    it("asks the person (form mode, redacted arguments) and an accept with approve: true lets the call run", async () => {
      answer = () => ({ action: "accept", content: { approve: true } });
      const target = file("approved");
      const result = await c.call("write_file", { path: target, content: SECRET });
      expect(result.isError).toBeFalsy();
      expect(readFileSync(target, "utf8")).toBe(SECRET);
      expect(c.asked).toHaveLength(1);
      const [question] = c.asked;
      expect(question!.mode).toBe("form");
      expect(question!.requestedSchema).toEqual({
        type: "object",
        properties: { approve: expect.objectContaining({ type: "boolean", default: false }) },
        required: ["approve"],
      });
      expect(question!.message).toContain("Tool: write_file");
      expect(question!.message).toContain("Server: fs");
      expect(question!.message).toContain(target);
      expect(question!.message).not.toContain(SECRET);
      // What is forwarded is not redacted.
      expect(c.received("write_file")).toEqual([
        { name: "write_file", arguments: { path: target, content: SECRET } },
      ]);
      expect(c.callEvents("write_file")).toMatchObject([
        {
          ...c.eventBase,
          decision: "allow",
          code: null,
          args_redacted: { path: target, content: "***" },
          approval: { elicitation: { outcome: "accept" } },
        },
      ]);
      expect(c.auditText()).not.toContain(SECRET);
      expect(c.stderr()).not.toContain(SECRET);
    });

    it.skipIf(legacyEra(surface))(
      "an error asking the person (modern era): the client gives up without a retry; nothing reaches the server",
      async () => {
        answer = () => {
          throw new Error("no UI");
        };
        const target = file(`client-failed-${c.callEvents().length}`);
        const before = c.callEvents("write_file").length;
        await expect(c.call("write_file", { path: target, content: "no\n" })).rejects.toThrow(/no UI/);
        expect(existsSync(target)).toBe(false);
        expect(c.received("write_file").filter((p) => JSON.stringify(p).includes(target))).toEqual([]);
        // The question went back as the result; no decision was made, so none is recorded.
        expect(c.callEvents("write_file")).toHaveLength(before);
      },
    );

    it("shows what the call acts on in full, first, however long the other arguments are", async () => {
      answer = () => ({ action: "decline" });
      c.asked.length = 0;
      const target = file("long-content");
      await c.call("write_file", { content: "x".repeat(5000), path: target });
      const message = c.asked[0]!.message;
      expect(message).toContain(`Acts on (in full):\n  /path: ${JSON.stringify(target)}`);
      expect(message.indexOf(target)).toBeLessThan(message.indexOf("Arguments (secret values hidden):"));
      expect(existsSync(target)).toBe(false);
    });

    it.each([
      ["a decline", "decline", () => ({ action: "decline" }), "the person declined"],
      ["a cancel", "cancel", () => ({ action: "cancel" }), "dismissed the question"],
      [
        "an accept with approve: false",
        "not-approved",
        () => ({ action: "accept", content: { approve: false } }),
        "without approving",
      ],
      ["an accept without content", "not-approved", () => ({ action: "accept" }), "without approving"],
      // In the modern era the client puts the question itself; one that fails gives up (see below).
      ...(legacyEra(surface)
        ? ([
            [
              "an error",
              "error",
              () => {
                throw new Error("no UI");
              },
              "asking the person failed",
            ],
          ] as const)
        : []),
    ] as const)(
      "%s denies with E_APPROVAL_REQUIRED ('%s'); the call never reaches the server",
      async (_answer, outcomeName, given, text) => {
        answer = given;
        const asked = c.questions.length;
        const target = file(`refused-${c.callEvents().length}`);
        const result = await c.call("write_file", { path: target, content: "no\n" });
        expect(result.isError).toBe(true);
        expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
        expect(denial(result).text).toContain(text);
        expect(denial(result).text).toContain("To approve: call again and approve it when asked; or ");
        // server-filesystem's tools declare an outputSchema, so the deny has no structuredContent; the meta
        // tool mcp_invoke_<server> declares none, so there it has.
        expect(result.structuredContent).toEqual(
          c.surface === "serve-meta"
            ? expect.objectContaining({
                status: "deny",
                error_code: "E_APPROVAL_REQUIRED",
                tool: "write_file",
              })
            : undefined,
        );
        expect(c.questions).toHaveLength(asked + 1);
        expect(existsSync(target)).toBe(false);
        expect(c.received("write_file").filter((p) => JSON.stringify(p).includes(target))).toEqual([]);
        expect(c.callEvents("write_file").at(-1)).toMatchObject({
          ...c.eventBase,
          decision: "deny",
          code: "E_APPROVAL_REQUIRED",
          approval: { elicitation: { outcome: outcomeName } },
        });
      },
    );

    it("a client that can be asked is asked when its artifact is not valid", async () => {
      answer = () => ({ action: "accept", content: { approve: true } });
      const target = file("asked-anyway");
      const result = await c.call(
        "write_file",
        { path: target, content: "x" },
        { approval: artifact("move_file", target) },
      );
      expect(result.isError).toBeFalsy();
      expect(c.questions.at(-1)).toContain("was not accepted");
      expect(c.received("write_file").at(-1)).toEqual({
        name: "write_file",
        arguments: { path: target, content: "x" },
      });
      expect(c.callEvents("write_file").at(-1)).toMatchObject({
        approval: { artifact: { accepted: false }, elicitation: { outcome: "accept" } },
      });
    });
  });

  describe("approval artifacts (a client without elicitation)", () => {
    let c: GateClient;
    beforeAll(async () => {
      c = await start(surface, {
        server: world.server,
        name: "fs",
        policy: POLICY,
        flags: ["--approval-key", approvalKeyFile()],
      });
    });

    it("without an artifact the call is denied (nobody can be asked), and nothing is written", async () => {
      const target = file("no-artifact");
      const result = await c.call("write_file", { path: target, content: "x" });
      expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(result).text).toContain(
        "no person can be asked: the client did not declare form-mode elicitation",
      );
      // The refusal names the rule's file and line, and the ways this surface offers to approve.
      expect(denial(result).text).toMatch(
        /\. Required by \S*policy\.yaml:3:23, tools\.approval_required 'write_file'\. To approve: a client with MCP form elicitation \(toolgate asks its person, who ticks 'approve'\); or /,
      );
      expect(denial(result).text).toContain(
        surface.startsWith("wrap")
          ? "; or an artifact from `toolgate approve --tool write_file …` in the call's params._meta.approval"
          : "; or the dashboard (start serve with --dashboard; a client that cannot ask then waits for an approver at /ui/approvals); or an artifact from `toolgate approve --tool write_file …`",
      );
      expect(denial(result).text).not.toContain("none is set");
      expect(existsSync(target)).toBe(false);
      expect(c.received("write_file")).toEqual([]);
    });

    it("a current signed artifact in params._meta.approval lets the call run; it is stripped, the rest of _meta kept; the audit carries its digest, profile and signer", async () => {
      const target = file("with-artifact");
      const a = signedArtifact("write_file", target);
      const result = await c.call(
        "write_file",
        { path: target, content: "approved by artifact\n" },
        { approval: a, other: "kept" },
      );
      expect(result.isError).toBeFalsy();
      expect(readFileSync(target, "utf8")).toBe("approved by artifact\n");
      const [received] = c.received("write_file");
      expect(received).toEqual({
        name: "write_file",
        arguments: { path: target, content: "approved by artifact\n" },
        _meta: { other: "kept" },
      });
      expect(JSON.stringify(c.received())).not.toContain("alice@example.com");
      expect(c.callEvents("write_file").find((e) => e.decision === "allow")).toMatchObject({
        ...c.eventBase,
        approval: {
          artifact: {
            accepted: true,
            source: "params._meta.approval",
            digest: approvalDigest(a),
            profile: APPROVAL_DIGEST_PROFILE,
            summary: {
              approval_id: a.approval_id,
              approver: "alice@example.com",
              signed_by: { alg: "EdDSA", key_id: a.signature.key_id },
            },
          },
        },
      });
    });

    it("the same artifact a second time is refused: each one approves one call", async () => {
      const target = file("replayed");
      const a = signedArtifact("write_file", target);
      expect(
        (await c.call("write_file", { path: target, content: "once\n" }, { approval: a })).isError,
      ).toBeFalsy();
      const again = await c.call("write_file", { path: target, content: "twice\n" }, { approval: a });
      expect(denial(again).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(again).text).toContain("was used before");
      expect(readFileSync(target, "utf8")).toBe("once\n");
      expect(c.received("write_file").filter((r) => JSON.stringify(r).includes("twice"))).toEqual([]);
    });

    it.each([
      [
        "unsigned",
        (a: Record<string, unknown>) => {
          const { signature: _, ...rest } = a;
          return rest;
        },
        "not signed",
      ],
      [
        "with a changed field",
        (a: Record<string, unknown>) => ({ ...a, approver: "mallory" }),
        "does not verify",
      ],
      [
        "signed by another key",
        (a: Record<string, unknown>) => ({
          ...a,
          signature: { alg: "HS256", key_id: "hmac:0123456789abcdef", value: "AAAA" },
        }),
        "does not trust",
      ],
    ])("an artifact %s approves nothing, and nothing is forwarded", async (what, spoil, text) => {
      const target = file(`spoiled-${what.replace(/ /g, "-")}`);
      const a = spoil(signedArtifact("write_file", target));
      const result = await c.call("write_file", { path: target, content: "x" }, { approval: a });
      expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(result).text).toContain(text);
      expect(existsSync(target)).toBe(false);
      expect(JSON.stringify(c.received())).not.toContain(target);
    });

    it("an artifact in arguments._meta.approval (the model's) never approves, signed or not, and is stripped there", async () => {
      const target = file("args-artifact");
      const result = await c.call("write_file", {
        path: target,
        content: "y\n",
        _meta: { approval: signedArtifact("write_file", target) },
      });
      expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(result).text).toContain("written by the model and never approves");
      expect(existsSync(target)).toBe(false);
      expect(c.received("write_file").filter((r) => JSON.stringify(r).includes(target))).toEqual([]);
      expect(c.callEvents("write_file").at(-1)).toMatchObject({
        decision: "deny",
        approval: { artifact: { accepted: false, source: "arguments._meta.approval" } },
      });
    });

    it.each([
      ["expired", { issued_at: "2025-01-01T00:00:00Z", expires_at: "2025-01-01T01:00:00Z" }, "expired"],
      ["for another tool", { bound_tool: "move_file" }, "is for tool 'move_file'"],
      [
        "for another file",
        { bound_resource: "/somewhere/else.txt" },
        "is bound to '/somewhere/else.txt', not '",
      ],
    ])(
      "a signed artifact %s is refused with E_APPROVAL_REQUIRED, recorded with its problem and digest, and nothing is forwarded",
      async (what, over, text) => {
        const target = file(`refused-${what.replace(/ /g, "-")}`);
        const a = signedArtifact("write_file", target, over);
        const result = await c.call("write_file", { path: target, content: "x" }, { approval: a });
        expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
        expect(denial(result).text).toContain(text);
        expect(denial(result).text).toContain("To approve: a client with MCP form elicitation");
        expect(existsSync(target)).toBe(false);
        expect(JSON.stringify(c.received())).not.toContain(target);
        expect(
          c.callEvents().find((e) => JSON.stringify(e.approval ?? {}).includes(approvalDigest(a))),
        ).toMatchObject({
          ...c.eventBase,
          decision: "deny",
          code: "E_APPROVAL_REQUIRED",
          approval: {
            artifact: {
              accepted: false,
              digest: approvalDigest(a),
              profile: APPROVAL_DIGEST_PROFILE,
              problem: expect.stringContaining(text),
            },
          },
        });
      },
    );

    it("beside a signed artifact in params._meta, one in the arguments is stripped and has no say", async () => {
      const target = file("two-artifacts");
      const result = await c.call(
        "write_file",
        { path: target, content: "z\n", _meta: { approval: { forged: true } } },
        { approval: signedArtifact("write_file", target) },
      );
      expect(result.isError).toBeFalsy();
      expect(c.received("write_file").at(-1)).toEqual({
        name: "write_file",
        arguments: { path: target, content: "z\n" },
      });
      expect(c.callEvents("write_file").at(-1)).toMatchObject({
        approval: { artifact: { accepted: true, source: "params._meta.approval", also_in_arguments: true } },
      });
    });

    it("an artifact on a call that needs no approval is not checked, and stripped all the same", async () => {
      const path = join(world.workspace, "notes.txt");
      const read = await c.call(
        "read_text_file",
        { path },
        { approval: signedArtifact("read_text_file", path) },
      );
      expect(read.content).toEqual([{ type: "text", text: "inside\n" }]);
      expect(c.received("read_text_file")).toEqual([{ name: "read_text_file", arguments: { path } }]);
      expect(c.callEvents("read_text_file")).toMatchObject([
        {
          decision: "allow",
          approval: { artifact: { accepted: false, problem: expect.stringContaining("not checked") } },
        },
      ]);
    });
  });
});
