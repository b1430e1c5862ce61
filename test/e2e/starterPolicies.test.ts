// The starter policy `toolgate policy init` (and `toolgate install`) writes, against the real server-filesystem,
// server-memory and server-everything: every tool's own valid calls (large, empty, deleting) pass the schema
// stage, decided by the engine on the generated file; every tool that is not readOnlyHint: true goes to a
// person; a path outside the server's roots is refused. Then the same calls for real, through `toolgate wrap`
// with an SDK client that elicits and approves: the server does the work, and the files on disk show it.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicyFile } from "../../src/config/policyLoader.js";
import { compilePolicy, type CompiledPolicy } from "../../src/engine/policy/compile.js";
import { decideCall } from "../../src/engine/policy/decide.js";
import type { Decision } from "../../src/engine/model/decision.js";
import { localRealpath } from "../../src/upstream/localRealpath.js";
import { runCli } from "./configDirHelpers.js";
import {
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  NODE,
  tempDir,
  wrapCommand,
  type Connected,
} from "./helpers.js";
import { MEMORY_SERVER } from "./serveHelpers.js";

interface Call {
  tool: string;
  what: string;
  args: Record<string, unknown>;
  /** Also made for real through wrap (default true). */
  real?: boolean;
}

interface World {
  name: string;
  server: string[];
  env?: Record<string, string>;
  calls: Call[];
  /** Checks after the real calls. */
  after?: () => void;
}

const KB5 = `// a source file\n${"export const x = 1;\n".repeat(260)}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const root = tempDir("tg-starter-root-");
const outside = `${root}_evil`; // a sibling that shares the root's letters
mkdirSync(outside);
writeFileSync(join(root, "notes.txt"), "hello\nworld\n");
// A 1×1 PNG.
writeFileSync(
  join(root, "pixel.png"),
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
    "base64",
  ),
);
symlinkSync(outside, join(root, "escape"));
const file = (name: string) => join(root, name);

const filesystem: World = {
  name: "server-filesystem",
  server: [NODE, FILESYSTEM_SERVER, root],
  calls: [
    { tool: "write_file", what: "a 5 KB source file", args: { path: file("big.ts"), content: KB5 } },
    { tool: "write_file", what: "an empty file", args: { path: file("empty.txt"), content: "" } },
    { tool: "write_file", what: "200 KB", args: { path: file("large.txt"), content: "z".repeat(200_000) } },
    {
      tool: "edit_file",
      what: "an edit that deletes text",
      args: { path: file("notes.txt"), edits: [{ oldText: "hello\n", newText: "" }] },
    },
    {
      tool: "edit_file",
      what: "a 5 KB replacement, dry run",
      args: { path: file("big.ts"), edits: [{ oldText: "// a source file", newText: KB5 }], dryRun: true },
    },
    { tool: "read_text_file", what: "a file", args: { path: file("notes.txt") } },
    { tool: "read_text_file", what: "its head", args: { path: file("big.ts"), head: 1 } },
    { tool: "read_file", what: "its tail", args: { path: file("big.ts"), tail: 1 } },
    { tool: "read_media_file", what: "an image", args: { path: file("pixel.png") } },
    {
      tool: "read_multiple_files",
      what: "300 paths",
      args: { paths: range(300).map(() => file("notes.txt")) },
    },
    { tool: "create_directory", what: "nested", args: { path: file("sub/deeper") } },
    { tool: "list_directory", what: "the root", args: { path: root } },
    { tool: "list_directory_with_sizes", what: "by size", args: { path: root, sortBy: "size" } },
    {
      tool: "directory_tree",
      what: "300 exclusions",
      args: { path: root, excludePatterns: range(300).map((i) => `*.no${i}`) },
    },
    { tool: "search_files", what: "a pattern", args: { path: root, pattern: "*.txt", excludePatterns: [] } },
    { tool: "get_file_info", what: "an empty file", args: { path: file("empty.txt") } },
    {
      tool: "move_file",
      what: "into a directory",
      args: { source: file("empty.txt"), destination: file("sub/moved.txt") },
    },
    { tool: "list_allowed_directories", what: "no arguments", args: {} },
  ],
  after: () => {
    expect(readFileSync(file("big.ts"), "utf8")).toBe(KB5);
    expect(readFileSync(file("notes.txt"), "utf8")).toBe("world\n");
    expect(readFileSync(file("sub/moved.txt"), "utf8")).toBe("");
    expect(readFileSync(file("large.txt"), "utf8")).toHaveLength(200_000);
  },
};

const memoryFile = join(tempDir("tg-starter-memory-"), "memory.jsonl");
const relation = { from: "e0", to: "e1", relationType: "knows" };
const memory: World = {
  name: "server-memory",
  server: [NODE, MEMORY_SERVER],
  env: { MEMORY_FILE_PATH: memoryFile },
  calls: [
    {
      tool: "create_entities",
      what: "300 entities, a 5 KB and an empty observation",
      args: {
        entities: range(300).map((i) => ({
          name: `e${i}`,
          entityType: "thing",
          observations: i === 0 ? ["x".repeat(5000), ""] : [],
        })),
      },
    },
    { tool: "create_relations", what: "one", args: { relations: [relation] } },
    { tool: "create_relations", what: "none", args: { relations: [] } },
    {
      tool: "add_observations",
      what: "an empty and a 5 KB one",
      args: { observations: [{ entityName: "e1", contents: ["", "y".repeat(5000)] }] },
    },
    { tool: "read_graph", what: "no arguments", args: {} },
    { tool: "search_nodes", what: "the empty query", args: { query: "" } },
    { tool: "search_nodes", what: "a 5 KB query", args: { query: "q".repeat(5000) } },
    { tool: "open_nodes", what: "no names", args: { names: [] } },
    { tool: "open_nodes", what: "300 names", args: { names: range(300).map((i) => `e${i}`) } },
    {
      tool: "delete_observations",
      what: "the empty one",
      args: { deletions: [{ entityName: "e0", observations: [""] }] },
    },
    { tool: "delete_relations", what: "one", args: { relations: [relation] } },
    { tool: "delete_entities", what: "none", args: { entityNames: [] } },
    { tool: "delete_entities", what: "300", args: { entityNames: range(300).map((i) => `e${i}`) } },
  ],
  after: () => {
    expect(readFileSync(memoryFile, "utf8")).not.toContain('"e0"');
  },
};

const everything: World = {
  name: "server-everything",
  server: [NODE, EVERYTHING_SERVER],
  calls: [
    { tool: "echo", what: "the empty message", args: { message: "" } },
    { tool: "echo", what: "a 5 KB message", args: { message: KB5 } },
    {
      tool: "get-annotated-message",
      what: "with an image",
      args: { messageType: "error", includeImage: true },
    },
    { tool: "get-env", what: "no arguments", args: {} },
    { tool: "get-resource-links", what: "the most", args: { count: 10 } },
    { tool: "get-resource-reference", what: "the defaults", args: {} },
    { tool: "get-structured-content", what: "a city", args: { location: "Chicago" } },
    { tool: "get-sum", what: "fractions", args: { a: 1.5, b: -2 } },
    { tool: "get-tiny-image", what: "no arguments", args: {} },
    {
      tool: "gzip-file-as-resource",
      what: "a 5 KB data URI",
      args: {
        name: "big.ts.gz",
        data: `data:text/plain;base64,${Buffer.from(KB5).toString("base64")}`,
        outputType: "resource",
      },
    },
    // A task-based tool (the client would have to poll tasks/result): decided here, not called.
    { tool: "simulate-research-query", what: "the empty topic", args: { topic: "" }, real: false },
    {
      tool: "simulate-research-query",
      what: "a 5 KB topic",
      args: { topic: KB5, ambiguous: true },
      real: false,
    },
    { tool: "toggle-simulated-logging", what: "on", args: {} },
    { tool: "toggle-simulated-logging", what: "off", args: {} },
    { tool: "toggle-subscriber-updates", what: "on", args: {} },
    { tool: "toggle-subscriber-updates", what: "off", args: {} },
    { tool: "trigger-long-running-operation", what: "one short step", args: { duration: 1, steps: 1 } },
  ],
};

interface Started {
  policyFile: string;
  compiled: CompiledPolicy;
  tools: Map<string, { readOnly: boolean; inputSchema: unknown }>;
}

async function starter(world: World): Promise<Started> {
  const dir = tempDir("tg-starter-");
  const policyFile = join(dir, "policy.yaml");
  const run = await runCli(["policy", "init", "--output", policyFile, "--", ...world.server], {
    ...(world.env === undefined ? {} : { env: world.env }),
  });
  expect(run.code, run.stderr).toBe(0);
  const loaded = loadPolicyFile(policyFile);
  expect(loaded.diagnostics).toEqual([]);
  const bare = await connect({
    command: world.server[0]!,
    args: world.server.slice(1),
    ...(world.env === undefined ? {} : { env: world.env }),
  });
  try {
    const listed = (await bare.client.listTools()).tools;
    const tools = new Map(
      listed.map((t) => [
        t.name,
        { readOnly: t.annotations?.readOnlyHint === true, inputSchema: t.inputSchema },
      ]),
    );
    return { policyFile, compiled: compilePolicy(loaded.policy!), tools };
  } finally {
    await bare.close();
  }
}

function decide(s: Started, tool: string, args: unknown, canElicit = true): Decision {
  return decideCall(
    s.compiled,
    tool,
    { kind: "value", value: args },
    { requests: 0, toolCalls: 0 },
    { canElicit, realpath: localRealpath(), inputSchema: s.tools.get(tool)?.inputSchema },
  );
}

const label = (c: Call) => `${c.tool}: ${c.what}`;

describe.each([filesystem, memory, everything])("the starter policy for $name", (world) => {
  let s: Started;
  beforeAll(async () => {
    s = await starter(world);
  }, 60_000);

  it("has valid calls here for every tool the server lists", () => {
    expect([...new Set(world.calls.map((c) => c.tool))].sort()).toEqual([...s.tools.keys()].sort());
  });

  it("passes each tool's own valid calls (large, empty, deleting) through the schema stage; only readOnlyHint: true runs without a person", () => {
    for (const c of world.calls) {
      const d = decide(s, c.tool, c.args);
      expect(d.decision, `${label(c)}: ${d.code} ${d.reason}`).toBe("allow");
      const approval = d.obligations.find((o) => o.kind === "approval_required");
      const readOnly = s.tools.get(c.tool)!.readOnly;
      expect(approval === undefined, label(c)).toBe(readOnly);
      if (!readOnly) {
        // With nobody to ask, the call reaches the approval step (never refused before it).
        expect(decide(s, c.tool, c.args, false).code, label(c)).toBe("E_APPROVAL_REQUIRED");
      }
    }
  });

  it("refuses an argument the server does not declare, and says the approval a write would also need", () => {
    const write = world.calls.find((c) => !s.tools.get(c.tool)!.readOnly)!;
    const d = decide(s, write.tool, { ...write.args, surprise: 1 });
    expect(d.code).toBe("E_ARG_SCHEMA");
    expect(d.reason).toContain(
      `; the call would also need a person's approval (tools.approval_required '${write.tool}'), and nobody was asked about a call refused before that step`,
    );
  });
});

describe("server-filesystem: paths outside the server's roots", () => {
  let s: Started;
  beforeAll(async () => {
    s = await starter(filesystem);
  }, 60_000);

  it("are refused for every tool that names a path, a look-alike sibling and a link out included", () => {
    const scoped = filesystem.calls.filter((c) => c.tool !== "list_allowed_directories");
    expect(scoped.length).toBeGreaterThan(10);
    for (const c of scoped) {
      const sibling = JSON.parse(JSON.stringify(c.args).split(root).join(outside)) as Record<string, unknown>;
      const d = decide(s, c.tool, sibling);
      expect(d.code, label(c)).toBe("E_SCOPE_VIOLATION");
      expect(d.reason, label(c)).toContain(`outside the scope '${root}'`);
    }
    const viaLink = decide(s, "write_file", { path: join(root, "escape", "x.txt"), content: "" });
    expect(viaLink.code).toBe("E_SCOPE_VIOLATION");
    expect(viaLink.reason).toContain(`resolves to '${join(outside, "x.txt")}'`);
  });

  it("toolgate policy check decides the same on the generated file", async () => {
    const check = (tool: string, args: unknown, more: string[] = []) =>
      runCli([
        "policy",
        "check",
        "--policy",
        s.policyFile,
        "--tool",
        tool,
        "--args",
        JSON.stringify(args),
        ...more,
      ]);
    const big = await check("write_file", { path: file("checked.ts"), content: KB5 }, ["--can-elicit"]);
    expect(big.code, big.stdout).toBe(0);
    expect(JSON.parse(big.stdout)).toMatchObject({
      decision: "allow",
      obligations: [
        { kind: "approval_required", status: "pending" },
        { kind: "restrict_scope", status: "enforced", checked: ["/path"] },
      ],
    });
    const deleting = await check("edit_file", {
      path: file("notes.txt"),
      edits: [{ oldText: "x", newText: "" }],
    });
    expect(JSON.parse(deleting.stdout)).toMatchObject({ decision: "deny", code: "E_APPROVAL_REQUIRED" });
    const out = await check("write_file", { path: join(outside, "x"), content: "" }, ["--can-elicit"]);
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ decision: "deny", code: "E_SCOPE_VIOLATION" });
  });
});

describe.each([filesystem, memory, everything])(
  "through toolgate wrap, approved by a client that elicits: $name",
  (world) => {
    let s: Started;
    let c: Connected;
    const questions: string[] = [];
    beforeAll(async () => {
      s = await starter(world);
      c = await connect(
        {
          ...wrapCommand(["--policy", s.policyFile], world.server),
          ...(world.env === undefined ? {} : { env: world.env }),
        },
        { capabilities: { elicitation: { form: {} } } },
        (client) =>
          client.setRequestHandler(ElicitRequestSchema, async (request) => {
            questions.push(String(request.params.message));
            return { action: "accept", content: { approve: true } };
          }),
      );
    }, 60_000);
    afterAll(async () => {
      await c?.close();
    });

    it("the server does each call's work; a person is asked about exactly the tools that are not read-only", async () => {
      const real = world.calls.filter((call) => call.real !== false);
      let expected = 0;
      for (const call of real) {
        const before = questions.length;
        const result = (await c.client.callTool({ name: call.tool, arguments: call.args })) as {
          isError?: boolean;
          content: Array<{ text?: string }>;
        };
        expect(result.isError, `${label(call)}: ${result.content.map((x) => x.text).join("")}`).toBeFalsy();
        const asked = !s.tools.get(call.tool)!.readOnly;
        if (asked) expected++;
        expect(questions.length - before, label(call)).toBe(asked ? 1 : 0);
        if (asked) expect(questions.at(-1)).toContain(`Tool: ${call.tool}`);
      }
      expect(questions).toHaveLength(expected);
      world.after?.();
    }, 120_000);

    if (world === filesystem) {
      it("create_directory asks; a write outside the roots is refused before anyone is asked", async () => {
        const before = questions.length;
        const made = (await c.client.callTool({
          name: "create_directory",
          arguments: { path: file("asked") },
        })) as {
          isError?: boolean;
        };
        expect(made.isError).toBeFalsy();
        expect(questions.length).toBe(before + 1);
        expect(questions.at(-1)).toContain("Tool: create_directory");
        for (const path of [
          join(outside, "x.txt"),
          join(root, "escape", "y.txt"),
          join(root, "..", "z.txt"),
        ]) {
          const refused = (await c.client.callTool({
            name: "write_file",
            arguments: { path, content: "no" },
          })) as {
            isError?: boolean;
            content: Array<{ text: string }>;
          };
          expect(refused.isError).toBe(true);
          expect(refused.content[0]!.text).toMatch(/^Blocked by policy: E_SCOPE_VIOLATION /);
          expect(refused.content[0]!.text).toContain("would also need a person's approval");
        }
        expect(questions.length).toBe(before + 1);
        expect(existsSync(join(outside, "x.txt"))).toBe(false);
        expect(existsSync(join(outside, "y.txt"))).toBe(false);
      });
    }
  },
);
