// toolgate policy suggest from a real dry run: wrap --dry-run --audit-log in front of the real server-memory,
// driven by the official SDK client (calls the policy allows, one its schema refuses, names it hides), then
// the suggestion: exactly the tools called through the name rules, a report of what the policy refused,
// a file that loads and that wrap then enforces. A tampered log is refused; bad input exits 2.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { JsonlFileSink } from "../../src/audit/jsonlFileSink.js";
import type { AuditEvent, ToolCallEvent } from "../../src/audit/events.js";
import { loadPolicyFile } from "../../src/config/policyLoader.js";
import { runCli } from "./configDirHelpers.js";
import { connect, NODE, outcome, readAudit, ROOT, tempDir, wrapCommand, writePolicy } from "./helpers.js";
import { MEMORY_SERVER } from "./serveHelpers.js";

const POLICY = `version: "2.0"
name: memory-dry-run
tools:
  allow: [read_graph, search_nodes, create_entities, add_observations]
  deny: [delete_entities]
schemas:
  create_entities:
    type: object
    additionalProperties: false
    required: [entities]
    properties:
      entities: { type: array, maxItems: 1 }
enforcement:
  unconstrained_tools: allow
`;

const SUGGESTED = ["create_entities", "open_nodes", "read_graph", "search_nodes"];

let dir: string;
let policy: string;
let auditLog: string;
let memoryFile: string;

const entity = (name: string) => ({ name, entityType: "person", observations: [] as string[] });

beforeAll(async () => {
  dir = tempDir("tg-suggest-");
  policy = writePolicy(dir, POLICY);
  auditLog = join(dir, "audit.jsonl");
  memoryFile = join(dir, "memory.jsonl");
  const c = await connect({
    ...wrapCommand(
      ["--dry-run", "--policy", policy, "--audit-log", auditLog, "--label", "dry"],
      [NODE, MEMORY_SERVER],
    ),
    env: { MEMORY_FILE_PATH: memoryFile },
  });
  try {
    await c.client.listTools();
    // Refused by the schema (two entities, maxItems 1): forwarded all the same, recorded would-deny.
    await c.client.callTool({
      name: "create_entities",
      arguments: { entities: [entity("Ada"), entity("Bob")] },
    });
    await c.client.callTool({ name: "read_graph", arguments: {} });
    await c.client.callTool({ name: "read_graph", arguments: {} });
    await c.client.callTool({ name: "search_nodes", arguments: { query: "Ada" } });
    // Hidden by name (not in tools.allow; in tools.deny), and a name the server does not have.
    await c.client.callTool({ name: "open_nodes", arguments: { names: ["Ada"] } });
    await c.client.callTool({ name: "delete_entities", arguments: { entityNames: ["Bob"] } });
    await outcome(c.client.callTool({ name: "no_such_tool", arguments: {} }));
  } finally {
    await c.close();
  }
}, 60_000);

function suggest(args: string[], cwd?: string) {
  return runCli(["policy", "suggest", ...args], cwd === undefined ? {} : { cwd });
}

describe("toolgate policy suggest --from-audit (after wrap --dry-run)", () => {
  it("the dry run recorded what the policy would refuse, and forwarded it", () => {
    const calls = readFileSync(auditLog, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.event === "tools/call")
      .map((e) => `${String(e.tool)}:${String(e.decision)}:${String(e.code)}`);
    expect(calls).toEqual([
      "create_entities:would-deny:E_ARG_SCHEMA",
      "read_graph:allow:null",
      "read_graph:allow:null",
      "search_nodes:allow:null",
      "open_nodes:would-hide:E_TOOL_NOT_ALLOWED",
      "delete_entities:would-hide:E_TOOL_DENIED",
      "no_such_tool:would-hide:null",
    ]);
    expect(readFileSync(memoryFile, "utf8")).not.toContain('"Bob"');
  });

  it("suggests exactly the tools called, and reports the refusals as recorded", async () => {
    const run = await suggest(["--from-audit", auditLog]);
    expect(run.code).toBe(0);
    const suggested = parse(run.stdout) as {
      version: string;
      tools: Record<string, unknown>;
      enforcement: unknown;
    };
    expect(suggested).toEqual({
      version: "2.0",
      tools: { allow: SUGGESTED },
      enforcement: { unconstrained_tools: "warn" },
    });
    expect(run.stdout).toMatch(
      /- "read_graph" # 2 calls, \S+Z to \S+Z: allow \(tools.allow "read_graph"\)\n/,
    );
    expect(run.stdout).toMatch(
      /- "create_entities" # 1 call, \S+Z: would-deny E_ARG_SCHEMA \(schemas "create_entities"\)\n/,
    );
    expect(run.stdout).toContain('#   - "delete_entities" # 1 call');
    expect(run.stdout).toContain("toolgate policy init");
    expect(run.stderr).toContain("chain verified (");
    expect(run.stderr).toContain("7 calls of 6 tools; 4 tools in the suggested tools.allow");
    expect(run.stderr).toContain(
      [
        "refused by the policy in force, as the log recorded it:",
        '  create_entities: 1 call, would-deny E_ARG_SCHEMA (schemas "create_entities")',
        '  delete_entities: 1 call, would-hide E_TOOL_DENIED (tools.deny "delete_entities")',
        "  no_such_tool: 1 call, would-hide (a name the server did not have)",
        '  open_nodes: 1 call, would-hide E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        "called but hidden from the list, left out of tools.allow (add one only if you mean it):",
        "  delete_entities (1 call)",
        "  no_such_tool (1 call)",
      ].join("\n"),
    );
  });

  const out = () => join(dir, "suggested.yaml");

  it("with --policy: what it refuses by name, what it allows that nobody called; --output", async () => {
    const run = await suggest(["--from-audit", auditLog, "--policy", policy, "--output", out()]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      [
        `refused by ${policy} by name (the log holds no arguments, so its schemas, scopes and approvals are not judged):`,
        `  delete_entities: 1 call, E_TOOL_DENIED (tools.deny "delete_entities" at ${policy}:5)`,
        '  no_such_tool: 1 call, E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        '  open_nodes: 1 call, E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        `allowed by ${policy} but never called:`,
        "  add_observations",
      ].join("\n"),
    );
    expect(run.stderr).toContain(`wrote a suggested policy to ${out()}; review it before you rely on it`);
    const loaded = loadPolicyFile(out());
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.policy?.tools.allow?.map((e) => e.pattern)).toEqual(SUGGESTED);
    const validate = await runCli(["policy", "validate", "--input", out()]);
    expect(validate.code).toBe(0);
  });

  it("keeps an existing --output unless --force", async () => {
    const before = readFileSync(out(), "utf8");
    writeFileSync(out(), "# mine\n");
    const kept = await suggest(["--from-audit", auditLog, "--output", out()]);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain("error E_USAGE: ");
    expect(kept.stderr).toContain("exists; toolgate policy suggest keeps it");
    expect(readFileSync(out(), "utf8")).toBe("# mine\n");
    const forced = await suggest([
      "--from-audit",
      auditLog,
      "--policy",
      policy,
      "--output",
      out(),
      "--force",
    ]);
    expect(forced.code).toBe(0);
    expect(readFileSync(out(), "utf8")).toBe(before);
  });

  it("used with wrap, the suggested policy allows exactly those tools", async () => {
    const c = await connect({
      ...wrapCommand(["--policy", out()], [NODE, MEMORY_SERVER]),
      env: { MEMORY_FILE_PATH: memoryFile },
    });
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(SUGGESTED);
      const read = (await c.client.callTool({ name: "read_graph", arguments: {} })) as { isError?: boolean };
      expect(read.isError).not.toBe(true);
      for (const name of ["delete_entities", "add_observations"]) {
        const refused = await outcome(c.client.callTool({ name, arguments: {} }));
        // Hidden: answered as a tool the server does not have.
        expect(JSON.stringify(refused)).toContain(`Tool ${name} not found`);
      }
    } finally {
      await c.close();
    }
    expect(readFileSync(memoryFile, "utf8")).not.toContain('"Bob"');
  });

  it("refuses a tampered log (exit 1), naming the line and audit verify", async () => {
    const tampered = join(dir, "tampered.jsonl");
    const lines = readFileSync(auditLog, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes('"event":"tools/call","tool":"delete_entities"'));
    const edited = lines[at]!.replace('"decision":"would-hide"', '"decision":"allow"');
    expect(edited).not.toBe(lines[at]);
    lines[at] = edited;
    writeFileSync(tampered, lines.join("\n"));
    const target = join(dir, "from-tampered.yaml");
    const run = await suggest(["--from-audit", tampered, "--output", target]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `error E_AUDIT_CHAIN: ${tampered} does not verify at line ${at + 1} (edited)`,
    );
    expect(run.stderr).toContain(`toolgate audit verify ${tampered}`);
    expect(existsSync(target)).toBe(false);
  });

  it("bad input exits 2: a missing file, a line that is not JSON (file:line), a policy that does not load", async () => {
    const missing = await suggest(["--from-audit", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error E_AUDIT_READ: cannot read audit log");
    const broken = join(dir, "not-json.jsonl");
    copyFileSync(auditLog, broken);
    const n = readFileSync(auditLog, "utf8").split("\n").length; // the line after the last
    writeFileSync(broken, readFileSync(auditLog, "utf8") + "this is not json\n");
    const run = await suggest(["--from-audit", broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error E_AUDIT_READ: ${broken}:${n}: not JSON`);
    expect(run.stdout).toBe("");
    const badPolicy = writePolicy(dir, "version: 2.0\n", "bad.yaml");
    const unloadable = await suggest(["--from-audit", auditLog, "--policy", badPolicy]);
    expect(unloadable.code).toBe(2);
    expect(unloadable.stderr).toContain("E_POLICY_VERSION");
    expect(unloadable.stdout).toBe("");
  });

  it("a log without calls: an empty allowlist, said, exit 1", async () => {
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    const run = await suggest(["--from-audit", empty]);
    expect(run.code).toBe(1);
    expect(parse(run.stdout)).toMatchObject({ tools: { allow: [] } });
    expect(run.stderr).toContain("the suggested tools.allow is empty, which allows nothing");
  });
});

/** The fenced blocks of docs/audit.md's suggest section, in order, without their indentation. */
function docsBlocks(): string[] {
  const doc = readFileSync(join(ROOT, "docs/audit.md"), "utf8");
  const start = doc.indexOf("## From a dry run to an allowlist: toolgate policy suggest");
  const section = doc.slice(start, doc.indexOf("\n## ", start + 1));
  return [...section.matchAll(/^( *)```\w*\n([\s\S]*?)^\1```$/gm)].map((m) =>
    m[2]!
      .split("\n")
      .map((line) => line.slice(m[1]!.length))
      .join("\n"),
  );
}

describe("docs/audit.md's example is what the command prints", () => {
  it("for the same dry run, its times fixed", async () => {
    // The dry run above, with fixed times and re-chained: the same bytes, so the same head, on every run.
    const docs = tempDir("tg-suggest-docs-");
    writePolicy(docs, POLICY);
    const sink = new JsonlFileSink(join(docs, "audit.jsonl"));
    readAudit(auditLog).forEach(({ seq: _seq, prev: _prev, ...event }, i) => {
      const time = new Date(Date.UTC(2026, 10, 30, 9, 14, 2, 118) + i * 1375).toISOString();
      sink.write({ ...event, time } as unknown as AuditEvent);
    });
    sink.close();
    const blocks = docsBlocks();
    expect(blocks).toHaveLength(6);
    const [, policyBlock, report, file, judged, narrowed] = blocks;
    expect(policyBlock).toBe(POLICY);
    const run = await suggest(["--from-audit", "audit.jsonl", "--output", "suggested.yaml"], docs);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(report);
    expect(readFileSync(join(docs, "suggested.yaml"), "utf8")).toBe(file);
    const withPolicy = await suggest(["--from-audit", "audit.jsonl", "--policy", "policy.yaml"], docs);
    expect(withPolicy.stderr).toContain(judged);
    expect(withPolicy.stderr).toContain(narrowed);
  });
});

describe("serve's logs: one server at a time", () => {
  const event = (
    seq: number,
    server: string | null,
    tool: string,
  ): ToolCallEvent & { server: string | null } => ({
    time: `2026-03-01T10:00:0${seq}.000Z`,
    session: "s",
    policy_digest: null,
    request_id: seq,
    server,
    client: "stdio",
    event: "tools/call",
    tool,
    decision: server === null ? "hidden" : "allow",
    code: null,
    rule: null,
    reason: "r",
    warnings: [],
    args_sha256: null,
  });
  let log: string;
  beforeAll(() => {
    log = join(tempDir("tg-suggest-serve-"), "audit.jsonl");
    const sink = new JsonlFileSink(log);
    sink.write(event(1, "fs", "read_text_file"));
    sink.write(event(2, "memory", "read_graph"));
    sink.write(event(3, null, "fs_read"));
    sink.write(event(4, "fs", "list_directory"));
    sink.close();
  });

  it("several servers need --server (exit 2 listing them)", async () => {
    const run = await runCli(["policy", "suggest", "--from-audit", log]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("records calls to 2 servers ('fs', 'memory')");
    expect(run.stderr).toContain("choose one with --server NAME");
  });

  it("--server picks one; an unknown one exits 2", async () => {
    const run = await runCli(["policy", "suggest", "--from-audit", log, "--server", "fs"]);
    expect(run.code).toBe(0);
    expect(parse(run.stdout)).toMatchObject({ tools: { allow: ["list_directory", "read_text_file"] } });
    expect(run.stdout).toContain(`the tools called in ${log}, server "fs".`);
    expect(run.stderr).toContain("1 call to names no server has (server null), left out");
    const unknown = await runCli(["policy", "suggest", "--from-audit", log, "--server", "github"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no call in");
    expect(unknown.stderr).toContain("'fs', 'memory'");
  });
});

describe("with --policy: the policy in force narrowed, never weakened (a starter policy, a dry run under it)", () => {
  const work = tempDir("tg-suggest-keep-");
  const starter = join(work, "starter.yaml");
  const log = join(work, "audit.jsonl");
  const suggested = join(work, "suggested.yaml");
  const env = { MEMORY_FILE_PATH: join(work, "memory.jsonl") };
  let run: Awaited<ReturnType<typeof runCli>>;
  type PolicyFile = {
    tools: { allow: string[]; approval_required: string[] };
    schemas: Record<string, unknown>;
    tool_pins: Record<string, unknown>;
    enforcement: Record<string, string>;
  };

  beforeAll(async () => {
    const init = await runCli(["policy", "init", "--output", starter, "--", NODE, MEMORY_SERVER], { env });
    expect(init.code, init.stderr).toBe(0);
    const c = await connect({
      ...wrapCommand(["--dry-run", "--policy", starter, "--audit-log", log], [NODE, MEMORY_SERVER]),
      env,
    });
    try {
      await c.client.callTool({ name: "create_entities", arguments: { entities: [entity("Ada")] } });
      await c.client.callTool({ name: "read_graph", arguments: {} });
      await c.client.callTool({ name: "search_nodes", arguments: { query: "" } });
    } finally {
      await c.close();
    }
    run = await suggest(["--from-audit", log, "--policy", starter, "--output", suggested]);
  }, 60_000);

  it("keeps the approvals, schemas, pins and enforcement of the tools it keeps", () => {
    expect(run.code, run.stderr).toBe(0);
    const before = parse(readFileSync(starter, "utf8")) as PolicyFile;
    const after = parse(readFileSync(suggested, "utf8")) as PolicyFile;
    const kept = ["create_entities", "read_graph", "search_nodes"];
    expect(after.tools.allow).toEqual(kept);
    expect(after.tools.approval_required).toEqual(["create_entities"]);
    for (const tool of kept) {
      expect(after.schemas[tool], tool).toEqual(before.schemas[tool]);
      expect(after.tool_pins[tool], tool).toEqual(before.tool_pins[tool]);
    }
    expect(Object.keys(after.schemas).sort()).toEqual(kept);
    expect(Object.keys(after.tool_pins).sort()).toEqual(kept);
    expect(after.enforcement).toEqual(before.enforcement);
    expect(after.enforcement).toEqual({ unconstrained_tools: "deny", unpinned_tools: "deny" });
  });

  it("says exactly what it removes: the tools not called, with their entries", () => {
    expect(run.stderr).toContain(
      `the suggested policy is ${starter} with tools.allow narrowed to the tools called: its deny, approvals, scope, redaction, schemas and pins of the tools kept, its contracts, enforcement and limits are unchanged\nremoved from ${starter} (tools not called in the log):\n`,
    );
    for (const tool of ["add_observations", "delete_entities", "open_nodes"]) {
      expect(run.stderr).toMatch(new RegExp(`  tools.allow "${tool}" \\(line \\d+\\): never called\\n`));
      expect(run.stderr).toMatch(
        new RegExp(`  schemas "${tool}" \\(line \\d+\\): its tool is no longer allowed\\n`),
      );
      expect(run.stderr).toMatch(
        new RegExp(`  tool_pins "${tool}" \\(line \\d+\\): its tool is no longer allowed\\n`),
      );
    }
    expect(run.stderr).toMatch(
      / {2}tools.approval_required "delete_entities" \(line \d+\): its tool is no longer allowed\n/,
    );
    // True now that nothing it allows is weakened: the approvals and schemas are still there.
    expect(run.stderr).toContain(`${starter} refuses none of these tools by name`);
    expect(readFileSync(suggested, "utf8")).toContain(`#   tools.allow "delete_entities" (line `);
  });

  it("validates with no warning, and wrap enforces it: still asks, still checks the schema", async () => {
    const validate = await runCli(["policy", "validate", "--input", suggested]);
    expect(validate.stdout).toContain("valid (version 2.0, 0 warnings)");
    const c = await connect({ ...wrapCommand(["--policy", suggested], [NODE, MEMORY_SERVER]), env });
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(["create_entities", "read_graph", "search_nodes"]);
      const create = (await c.client.callTool({
        name: "create_entities",
        arguments: { entities: [entity("Bob")] },
      })) as { content: Array<{ text: string }> };
      expect(create.content[0]!.text).toMatch(/^Blocked by policy: E_APPROVAL_REQUIRED /);
      const extra = (await c.client.callTool({
        name: "search_nodes",
        arguments: { query: "", surprise: 1 },
      })) as { content: Array<{ text: string }> };
      expect(extra.content[0]!.text).toMatch(/^Blocked by policy: E_ARG_SCHEMA .*surprise/);
    } finally {
      await c.close();
    }
  });
});
