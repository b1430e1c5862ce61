// `toolgate policy diff` over the real server-filesystem: its live catalog (-- CMD) and the same catalog
// saved to a file (--catalog, written here from the official SDK client's tools/list). The findings are the
// ones the candidate makes (a tool removed, a schema tightened with an example, approval dropped, a scope
// added), --fail-on gates on their direction, and bad input exits 2 with file:line.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./configDirHelpers.js";
import { connect, FILESYSTEM_SERVER, NODE, tempDir, writePolicy } from "./helpers.js";

const root = tempDir("tg-diff-root-");
const dir = tempDir("tg-diff-");
const OLD = writePolicy(
  dir,
  `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file, search_files]
  approval_required: [write_file]
schemas:
  read_text_file:
    type: object
    properties: {path: {type: string}, head: {type: number}}
    required: [path]
    additionalProperties: false
`,
  "old.yaml",
);
const NEW = writePolicy(
  dir,
  `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  restrict_scope: [list_directory]
  restrict_scope_contract: {scope_type: path_prefix, scope_value: ${JSON.stringify(root)}, scope_match_mode: prefix}
schemas:
  read_text_file:
    type: object
    properties: {path: {type: string, maxLength: 200}, head: {type: number, maximum: 100}}
    required: [path]
    additionalProperties: false
`,
  "new.yaml",
);
const SERVER = ["--", NODE, FILESYSTEM_SERVER, root];

interface Change {
  kind: string;
  effect: string;
  new: unknown;
  examples?: { effect: string; arguments: Record<string, unknown>; code: string }[];
}
interface DiffJson {
  summary: { tools: number; changed: number; newly_allowed: number; newly_denied: number };
  tools: { server: string; tool: string; changes: Change[] }[];
}

function changesOf(json: DiffJson, tool: string): Change[] {
  return json.tools.find((t) => t.tool === tool)?.changes ?? [];
}

function expectFindings(json: DiffJson, server: string): void {
  expect(json.tools.map((t) => t.tool).sort()).toEqual([
    "list_directory",
    "read_text_file",
    "search_files",
    "write_file",
  ]);
  expect(json.tools.every((t) => t.server === server)).toBe(true);
  expect(changesOf(json, "search_files")).toMatchObject([
    { kind: "visibility", effect: "newly-denied", new: { visible: false, code: "E_TOOL_NOT_ALLOWED" } },
  ]);
  expect(changesOf(json, "write_file")).toMatchObject([
    { kind: "approval", effect: "newly-allowed", new: null },
  ]);
  const schema = changesOf(json, "read_text_file").find((c) => c.kind === "schema")!;
  expect(schema.effect).toBe("newly-denied");
  expect(schema.examples![0]!.code).toBe("E_ARG_SCHEMA");
  const scope = changesOf(json, "list_directory").find((c) => c.kind === "scope")!;
  expect(scope).toMatchObject({ effect: "newly-denied", examples: [{ code: "E_SCOPE_VIOLATION" }] });
  expect(json.summary).toMatchObject({ changed: 4, newly_allowed: 1, newly_denied: 3 });
}

describe("toolgate policy diff", () => {
  it("compares over the live catalog of a command", async () => {
    const run = await runCli(["policy", "diff", OLD, NEW, "--format", "json", "--server", "fs", ...SERVER]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as DiffJson;
    expectFindings(json, "fs");
    expect(json.summary.tools).toBeGreaterThan(10);
  });

  it("prints the same findings as text a reviewer reads", async () => {
    const run = await runCli(["policy", "diff", OLD, NEW, ...SERVER]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/search_files\n {2}- hidden: E_TOOL_NOT_ALLOWED/);
    expect(run.stdout).toMatch(
      /write_file\n {2}\+ no longer needs a person's approval \(tools\.approval_required 'write_file' .*old\.yaml:4\)/,
    );
    expect(run.stdout).toMatch(
      /e\.g\. \{path: .*\} allowed before, now refused: E_ARG_SCHEMA \[schemas 'read_text_file' .*new\.yaml:\d+\]/,
    );
  });

  it("compares over a saved catalog, and --fail-on gates on the direction", async () => {
    const c = await connect({ command: NODE, args: [FILESYSTEM_SERVER, root] });
    let tools;
    try {
      tools = (await c.client.listTools()).tools;
    } finally {
      await c.close();
    }
    const catalog = join(dir, "catalog.json");
    writeFileSync(catalog, JSON.stringify({ servers: { files: { tools } } }, null, 2));
    const run = await runCli(["policy", "diff", OLD, NEW, "--catalog", catalog, "--format", "json"]);
    expect(run.code).toBe(0);
    expectFindings(JSON.parse(run.stdout) as DiffJson, "files");

    expect(
      (await runCli(["policy", "diff", OLD, NEW, "--catalog", catalog, "--fail-on", "newly-allowed"])).code,
    ).toBe(1);
    expect(
      (await runCli(["policy", "diff", OLD, NEW, "--catalog", catalog, "--fail-on", "newly-denied"])).code,
    ).toBe(1);
    const same = await runCli(["policy", "diff", OLD, OLD, "--catalog", catalog, "--fail-on", "any"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/0 of \d+ tools change/);
    // Only tightening: fewer tools, the same schema (dropping the schema would loosen read_text_file).
    const tighten = writePolicy(
      dir,
      readFileSync(OLD, "utf8").replace(/allow: \[.*\]/, "allow: [read_text_file]"),
      "tight.yaml",
    );
    expect(
      (await runCli(["policy", "diff", OLD, tighten, "--catalog", catalog, "--fail-on", "newly-allowed"]))
        .code,
    ).toBe(0);
    expect(
      (await runCli(["policy", "diff", OLD, tighten, "--catalog", catalog, "--fail-on", "newly-denied"]))
        .code,
    ).toBe(1);
  });

  it("refuses bad input with exit 2 and file:line", async () => {
    const bad = writePolicy(dir, `version: "2.0"\ntools:\n  allow: read_text_file\n`, "bad.yaml");
    const run = await runCli(["policy", "diff", OLD, bad, ...SERVER]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.yaml:3:\d+: error E_POLICY_/);
    const catalog = join(dir, "broken.json");
    writeFileSync(catalog, '{\n  "servers": {\n    "fs": {"tools": [{"inputSchema": {}}]}\n  }\n}\n');
    const broken = await runCli(["policy", "diff", OLD, NEW, "--catalog", catalog]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("broken.json:3:");
    expect(broken.stderr).toContain("E_CATALOG_FILE");
    const neither = await runCli(["policy", "diff", OLD, NEW]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("E_USAGE");
  });
});
