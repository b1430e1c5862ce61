// The starter policy's choices, one by one: how annotations are read (only readOnlyHint: true runs without a
// person), how a schema is closed without being narrowed, how the server's roots are read from its command,
// and that the whole file loads as a v2 policy that `policy validate` has nothing to say about.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { lintPolicy } from "../../../src/config/policyLint.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { decideCall } from "../../../src/engine/policy/decide.js";
import { pinCatalog } from "../../../src/cli/pin/pinBlock.js";
import { serverRoots } from "../../../src/cli/policy/serverRoots.js";
import { starterKind, starterPolicyYaml } from "../../../src/cli/policy/starterPolicy.js";
import { requiredPathArguments, starterSchema } from "../../../src/cli/policy/starterSchema.js";
import { localRealpath } from "../../../src/upstream/localRealpath.js";

describe("starterKind", () => {
  it.each([
    [{ readOnlyHint: true }, "read-only"],
    [{ readOnlyHint: true, destructiveHint: true }, "read-only"],
    // destructiveHint: false still changes things (create_directory): a person approves it.
    [{ readOnlyHint: false, destructiveHint: false }, "approval"],
    [{ destructiveHint: false }, "approval"],
    [{ readOnlyHint: false, destructiveHint: true }, "approval"],
    [undefined, "approval"],
    [{ openWorldHint: true }, "approval"],
    [{ readOnlyHint: "true" }, "approval"],
  ] as const)("%j → %s", (annotations, kind) => {
    expect(starterKind({ name: "t", ...(annotations === undefined ? {} : { annotations }) }).kind).toBe(kind);
  });
});

const TEXT = "unbounded: any length the server accepts, the empty string included";
const LIST = "unbounded: as many items as the server accepts";
const SCOPED = "unbounded: a path; restrict_scope keeps it inside the server's roots, not a length";

describe("starterSchema", () => {
  it("closes objects and adds no bound: the server's own lengths, a $comment where it sets none", () => {
    expect(
      starterSchema(
        {
          type: "object",
          properties: {
            path: { type: "string", pattern: "^/" },
            content: { type: "string" },
            mode: { type: "string", enum: ["a", "b"] },
            tags: { type: "array", items: { type: "string", maxLength: 9 } },
            paths: { type: "array", items: { type: "string" }, minItems: 1 },
            meta: {
              type: "object",
              properties: { k: { type: "string", maxLength: 9, $comment: "theirs" } },
              additionalProperties: true,
            },
          },
          required: ["path", "content"],
        },
        "scoped",
      ),
    ).toEqual({
      type: "object",
      properties: {
        path: { type: "string", pattern: "^/", $comment: SCOPED },
        content: { type: "string", $comment: TEXT },
        mode: { type: "string", enum: ["a", "b"] },
        tags: { type: "array", items: { type: "string", maxLength: 9 }, $comment: LIST },
        paths: { type: "array", items: { type: "string", $comment: SCOPED }, minItems: 1, $comment: LIST },
        meta: {
          type: "object",
          properties: { k: { type: "string", maxLength: 9, $comment: "theirs" } },
          additionalProperties: true,
          required: [],
        },
      },
      required: ["path", "content"],
      additionalProperties: false,
    });
  });

  it("keeps the server's own comment after its own, and leaves composed objects open", () => {
    expect(starterSchema({ type: "string", $comment: "a note" }, "scoped")).toEqual({
      type: "string",
      $comment: `${TEXT}; the server's comment: a note`,
    });
    const composed = starterSchema(
      { type: "object", properties: { a: { type: "integer" } }, allOf: [{ properties: { b: {} } }] },
      "scoped",
    ) as Record<string, unknown>;
    expect(composed.additionalProperties).toBeUndefined();
  });

  it("finds the required path arguments a scope can check", () => {
    const schema = {
      type: "object",
      properties: { source: {}, destination: {}, content: {}, root_dir: {} },
      required: ["source", "destination", "content", "missing_path"],
    };
    expect(requiredPathArguments(schema)).toEqual(["source", "destination"]);
    expect(requiredPathArguments({ type: "object", properties: { path: {} } })).toEqual([]);
  });
});

describe("serverRoots", () => {
  const base = mkdtempSync(join(tmpdir(), "tg-roots-"));
  const project = join(base, "project");
  const other = join(base, "other");
  mkdirSync(project);
  mkdirSync(other);
  writeFileSync(join(base, "server.js"), "");
  symlinkSync(project, join(base, "link"));
  const stdio = (args: string[]) =>
    ({ transport: "stdio", name: "s", command: "node", args, env: {}, cwd: base }) as const;

  it("every argument naming an existing directory, relative ones against the server's cwd", () => {
    expect(
      serverRoots(stdio(["server.js", project, "-y", "--flag", "other", "nope", "--root=" + other])),
    ).toEqual([
      { path: project, from: "argument 2 of the server's command" },
      { path: other, from: "argument 5 of the server's command" },
    ]);
    expect(serverRoots(stdio(["~"]))).toEqual([
      { path: homedir(), from: "argument 1 of the server's command" },
    ]);
  });

  it("a directory reached through a link is listed as written and resolved", () => {
    expect(serverRoots(stdio([join(base, "link")])).map((r) => r.path)).toEqual([
      join(base, "link"),
      project,
    ]);
  });

  it("a remote server has none", () => {
    expect(serverRoots({ transport: "http", name: "s", url: "http://127.0.0.1:1/mcp", headers: {} })).toEqual(
      [],
    );
  });
});

describe("starterPolicyYaml", () => {
  const tools = [
    {
      name: "read",
      annotations: { readOnlyHint: true },
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
    {
      name: "write",
      annotations: { destructiveHint: true },
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    },
    {
      name: "mkdir",
      annotations: { readOnlyHint: false, destructiveHint: false },
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
    {
      name: "search",
      annotations: { readOnlyHint: true },
      inputSchema: { type: "object", properties: { query: { type: "string" }, path: { type: "string" } } },
    },
    { name: "wipe", inputSchema: { type: "object" } },
  ];
  const root = mkdtempSync(join(tmpdir(), "tg-starter-"));
  const starter = (roots: Array<{ path: string; from: string }>, list = tools) => {
    const text = starterPolicyYaml({
      server: "s 1.0",
      tools: list,
      pins: pinCatalog(list, new Map(), "s"),
      roots,
    });
    const { policy, diagnostics } = loadPolicyText("p.yaml", text);
    return { text, policy, diagnostics };
  };

  it("loads as a v2 policy that validate has nothing to say about, also for a server with no tools", () => {
    for (const [roots, list] of [
      [[], tools],
      [[{ path: root, from: "argument 1" }], tools],
      [[], []],
    ] as const) {
      const { policy, diagnostics } = starter([...roots], [...list]);
      expect(diagnostics).toEqual([]);
      expect(lintPolicy(policy!)).toEqual([]);
    }
  });

  it("asks a person about every tool that is not readOnlyHint: true", () => {
    const { policy } = starter([]);
    expect(policy!.tools.approvalRequired.map((e) => e.pattern)).toEqual(["mkdir", "wipe", "write"]);
  });

  it("scopes the tools whose every call names a path to the roots, one or several", () => {
    const one = starter([{ path: root, from: "argument 1" }]);
    expect(one.policy!.tools.restrictScope.map((e) => e.pattern)).toEqual(["mkdir", "read", "write"]);
    expect(one.policy!.tools.restrictScopeContract).toMatchObject({
      scopeType: "path_prefix",
      scopeValue: root,
      scopeMatchMode: "prefix",
      realpath: true,
    });
    expect(one.text).toContain('# Not scoped: "search" (a path argument is optional');
    const two = starter([
      { path: root, from: "argument 1" },
      { path: "/srv/b", from: "argument 2" },
    ]);
    expect(two.policy!.tools.restrictScopeContract!.scopeValues).toEqual([root, "/srv/b"]);
    expect(starter([]).policy!.tools.restrictScope).toEqual([]);
    expect(starter([]).text).toContain("# Not scoped: the server's command names no directory");
  });

  it("admits what the server admits (large, empty) and refuses a path outside the roots", () => {
    const { policy } = starter([{ path: root, from: "argument 1" }]);
    const compiled = compilePolicy(policy!);
    const decide = (tool: string, args: unknown) =>
      decideCall(
        compiled,
        tool,
        { kind: "value", value: args },
        { requests: 0, toolCalls: 0 },
        {
          canElicit: true,
          realpath: localRealpath(),
        },
      );
    for (const content of ["", "x".repeat(5 * 1024), "y".repeat(1_000_000)]) {
      const decision = decide("write", { path: join(root, "f.txt"), content });
      expect(decision.decision).toBe("allow");
      expect(decision.obligations.map((o) => [o.kind, "status" in o ? o.status : null])).toEqual([
        ["approval_required", "pending"],
        ["restrict_scope", "enforced"],
      ]);
    }
    expect(decide("write", { path: join(root, "..", "f.txt"), content: "" }).code).toBe("E_SCOPE_VIOLATION");
    expect(decide("read", { path: "/etc/passwd" }).code).toBe("E_SCOPE_VIOLATION");
    expect(decide("write", { path: join(root, "f"), content: "", extra: 1 }).code).toBe("E_ARG_SCHEMA");
  });

  it("says every choice in a comment", () => {
    const { text } = starter([{ path: root, from: "argument 1 of the server's command" }]);
    const parsed = parse(text) as {
      schemas: Record<string, { properties: Record<string, { $comment?: string }> }>;
    };
    expect(parsed.schemas.write!.properties.content!.$comment).toBe(TEXT);
    expect(parsed.schemas.write!.properties.path!.$comment).toBe(SCOPED);
    expect(text).toContain(`scope_value: ${JSON.stringify(root)} # argument 1 of the server's command`);
    expect(text).toMatch(/- "mkdir" # no readOnlyHint: it changes things .* so a person approves each call/);
    expect(text).toContain("- \"write\" # every call names 'path'");
  });
});
