// Conformance, on every surface: a planted secret in the arguments reaches no sink toolgate writes — the
// audit log, its stderr (--verbose), the question the person is asked, its own deny answers — whether the
// call is allowed (after approval), refused by the argument schema, refused by the scope, or answered by the
// server with an error. What is forwarded is the call as sent. Against the real server-filesystem.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { denial, gates, SURFACES, type GateClient } from "./surfaces.js";
import { fsWorld, type FsWorld } from "./worlds.js";

const SECRET = "PLANTED-5e1b2d-SECRET";

let world: FsWorld;
beforeAll(() => {
  world = fsWorld();
});

const policy = (workspace: string) => `version: "2.0"
tools:
  approval_required: ["write_file"]
  restrict_scope: ["read_text_file"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix }
  redact_args: ["write_file", "read_text_file", "create_directory"]
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: sensitive_fields, fields: [content, path] }
schemas:
  create_directory:
    type: object
    additionalProperties: false
    properties: { path: { type: string, pattern: "^/nowhere/" } }
    required: [path]
enforcement: { unconstrained_tools: allow }
`;

describe.each(SURFACES)("%s", (surface) => {
  const start = gates();
  let c: GateClient;
  const secretFile = () => join(world.workspace, `${SECRET}-${surface}.txt`);
  beforeAll(async () => {
    c = await start(surface, {
      server: world.server,
      name: "fs",
      policy: policy(world.workspace),
      flags: ["--verbose"],
      elicit: () => ({ action: "accept", content: { approve: true } }),
    });
  });

  it("allowed (after approval): forwarded as sent; the question shows it masked", async () => {
    const result = await c.call("write_file", { path: secretFile(), content: SECRET });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(secretFile(), "utf8")).toBe(SECRET);
    expect(c.received("write_file")).toEqual([
      { name: "write_file", arguments: { path: secretFile(), content: SECRET } },
    ]);
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0]).toContain("***");
  });

  it("denied by the argument schema: toolgate's answer does not quote it either", async () => {
    const result = await c.call("create_directory", { path: join(world.workspace, SECRET) });
    expect(denial(result).code).toBe("E_ARG_SCHEMA");
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(existsSync(join(world.workspace, SECRET))).toBe(false);
  });

  it("denied by the scope: the reason names the path normalized, never as written", async () => {
    const result = await c.call("read_text_file", { path: `${world.workspace}/../${SECRET}` });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(denial(result).text).toContain("outside the scope");
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("an error from the server goes to the client as it is", async () => {
    const result = await c.call("read_text_file", { path: join(world.workspace, `missing-${SECRET}.txt`) });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(SECRET);
  });

  it("a tool not under redact_args: secret-looking members are still never written", async () => {
    const result = await c.call("list_directory", {
      path: join(world.workspace, "docs"),
      api_key: SECRET,
      nested: { password: SECRET },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(c.received("list_directory"))).toContain(SECRET);
  });

  it("no sink holds it: audit log, stderr, the question the person was asked", async () => {
    await expect
      .poll(() => c.stderr())
      .toContain(`tools/call ${c.calledAs("create_directory")}: deny E_ARG_SCHEMA`);
    const events = c.callEvents();
    expect(events.map((e) => [e.tool, e.decision, e.code])).toEqual([
      ["write_file", "allow", null],
      ["create_directory", "deny", "E_ARG_SCHEMA"],
      ["read_text_file", "deny", "E_SCOPE_VIOLATION"],
      ["read_text_file", "allow", null],
      ["list_directory", "allow", null],
    ]);
    for (const e of events.slice(0, 4)) expect(e.args_redacted).toMatchObject({ path: "***" });
    expect(events[0]?.args_redacted).toEqual({ path: "***", content: "***" });
    // Only tools under redact_args carry args_redacted.
    expect(events[4]).not.toHaveProperty("args_redacted");
    expect(c.auditText()).toContain("args_sha256");
    for (const sink of [c.auditText(), c.stderr(), ...c.questions]) expect(sink).not.toContain(SECRET);
  });

  describe("redaction_scope: all_fields", () => {
    it("every argument is written masked, none by value, and the call is forwarded unchanged", async () => {
      const all = await start(surface, {
        server: world.server,
        name: "fs",
        policy: `version: "2.0"
tools:
  redact_args: ["list_directory"]
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: all_fields }
enforcement: { unconstrained_tools: allow }
`,
      });
      const path = join(world.workspace, "docs");
      expect((await all.call("list_directory", { path, title: SECRET })).isError).toBeFalsy();
      expect(all.received("list_directory")).toEqual([
        { name: "list_directory", arguments: { path, title: SECRET } },
      ]);
      const [event] = all.callEvents("list_directory");
      expect(event).toMatchObject({
        ...all.eventBase,
        decision: "allow",
        args_redacted: { path: "***", title: "***" },
      });
      expect(all.auditText()).not.toContain(SECRET);
      expect(all.auditText()).not.toContain(path);
    });
  });
});
