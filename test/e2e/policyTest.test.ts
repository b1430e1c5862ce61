import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, FILESYSTEM_SERVER, NODE, tempDir } from "./helpers.js";
import { parseXml, type XmlElement } from "./junitXml.js";

/**
 * `toolgate catalog save` in front of the real server-filesystem, then `toolgate policy test` over the
 * saved catalog (and over the live server): passing and failing cases, in text, JUnit and JSON.
 */

function run(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(NODE, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

const dir = tempDir("tg-policy-test-");
const srv = join(dir, "srv");
const server = [NODE, FILESYSTEM_SERVER, srv];

const POLICY = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  deny: [move_file]
  approval_required: [write_file]
`;

// Lines matter: the report names the line of each case.
const TESTS = `policy: policy.yaml
cases:
  - name: reads are allowed
    call: {server: fs, tool: read_text_file, arguments: {path: ${srv}/a.txt}}
    expect: {decision: allow, rule: "tools.allow read_text_file"}
  - name: writes wait for a person
    call: {tool: write_file, arguments: {path: ${srv}/a.txt, content: x}}
    expect: {decision: deny, code: E_APPROVAL_REQUIRED, obligations: [approval_required]}
  - name: moves are hidden
    call: {tool: move_file, arguments: {source: a, destination: b}}
    expect: {decision: hidden, code: E_TOOL_DENIED, rule: move_file}
  - name: what the model sees
    list: {server: fs}
    expect: {visible: [read_text_file, list_directory, write_file]}
`;

const FAILING = `policy: policy.yaml
cases:
  - name: reads are allowed
    call: {tool: read_text_file, arguments: {path: ${srv}/a.txt}}
    expect: {decision: allow}
  - name: deletes must be denied <& "quoted">
    call: {tool: write_file, arguments: {path: ${srv}/a.txt, content: x}, approval: ask}
    expect: {decision: deny, rule: write_file}
  - name: the model sees reads only
    list: {}
    expect: {visible: [read_text_file]}
`;

beforeAll(async () => {
  mkdirSync(srv);
  writeFileSync(join(srv, "a.txt"), "hello\n");
  writeFileSync(join(dir, "policy.yaml"), POLICY);
  writeFileSync(join(dir, "pass.tests.yaml"), TESTS);
  writeFileSync(join(dir, "fail.tests.yaml"), FAILING);
  const saved = await run(
    ["catalog", "save", "--output", "catalog.json", "--server", "fs", "--", ...server],
    dir,
  );
  expect(saved.stderr).toContain("saved the catalog of fs to catalog.json");
  expect(saved.code).toBe(0);
});

describe("toolgate catalog save", () => {
  it("writes each server's tools as tools/list gives them, with each inputSchema's text", () => {
    const saved = JSON.parse(readFileSync(join(dir, "catalog.json"), "utf8"));
    expect(saved.toolgate_catalog).toBe(1);
    const tools = saved.servers.fs.tools as { name: string; inputSchema: unknown; annotations?: unknown }[];
    const read = tools.find((t) => t.name === "read_text_file")!;
    expect(read.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } } });
    expect(read.annotations).toMatchObject({ readOnlyHint: true });
    expect(JSON.parse(saved.servers.fs.input_schema_texts.read_text_file)).toEqual(read.inputSchema);
    expect(tools.map((t) => t.name)).toContain("move_file");
  });
});

describe("toolgate policy test", () => {
  it("passing cases over the saved catalog: exit 0 and the totals", async () => {
    const r = await run(["policy", "test", "pass.tests.yaml", "--catalog", "catalog.json"], dir);
    expect(r.stdout).toBe("4 cases: 4 passed, 0 failed\n");
    expect(r.code).toBe(0);
  });

  it("failing cases: exit 1, one line each with file:line, expected and actual decision and rule", async () => {
    const r = await run(
      ["policy", "test", "fail.tests.yaml", "pass.tests.yaml", "--catalog", "catalog.json"],
      dir,
    );
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      `fail.tests.yaml:6: FAIL 'deletes must be denied <& "quoted">': expected decision deny, rule write_file; ` +
        `got decision allow, code (none), rule tools.allow write_file (decision: expected deny, got allow)`,
    );
    expect(lines[1]).toBe(
      "fail.tests.yaml:9: FAIL 'the model sees reads only': expected visible [read_text_file]; " +
        "got visible [read_text_file, write_file, list_directory] " +
        "(visible: unexpected write_file, list_directory (got [read_text_file, write_file, list_directory]))",
    );
    expect(lines[2]).toBe("7 cases: 5 passed, 2 failed");
  });

  it("--format junit: a report a JUnit reader takes, failures in the right test cases", async () => {
    const r = await run(
      [
        "policy",
        "test",
        "fail.tests.yaml",
        "pass.tests.yaml",
        "--catalog",
        "catalog.json",
        "--format",
        "junit",
      ],
      dir,
    );
    expect(r.code).toBe(1);
    const root = parseXml(r.stdout);
    expect(root.name).toBe("testsuites");
    expect(root.attributes).toMatchObject({ tests: "7", failures: "2", errors: "0" });
    expect(
      root.children.map((s) => [s.name, s.attributes.name, s.attributes.tests, s.attributes.failures]),
    ).toEqual([
      ["testsuite", "fail.tests.yaml", "3", "2"],
      ["testsuite", "pass.tests.yaml", "4", "0"],
    ]);
    const cases = root.children[0]!.children;
    expect(
      cases.map((c) => [c.name, c.attributes.name, c.attributes.line, c.children.map((f) => f.name)]),
    ).toEqual([
      ["testcase", "reads are allowed", "3", []],
      ["testcase", 'deletes must be denied <& "quoted">', "6", ["failure"]],
      ["testcase", "the model sees reads only", "9", ["failure"]],
    ]);
    const failure: XmlElement = cases[1]!.children[0]!;
    expect(failure.attributes.type).toBe("E_POLICY_TEST_FAILED");
    expect(failure.attributes.message).toContain("expected decision deny");
    expect(failure.text).toContain("fail.tests.yaml:6: decision: expected deny, got allow");
    expect(root.children[1]!.children.every((c) => c.children.length === 0)).toBe(true);
    // The reader is strict: the same report with one escape undone, or one tag dropped, is refused.
    expect(() => parseXml(r.stdout.replace("&amp;", "&"))).toThrow(/reference|entity/);
    expect(() => parseXml(r.stdout.replace("</testsuite>", ""))).toThrow(/closes/);
  });

  it("--format json: every case with its status, actual decision, rule and mismatches", async () => {
    const r = await run(
      ["policy", "test", "fail.tests.yaml", "--catalog", "catalog.json", "--format", "json"],
      dir,
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ passed: 1, failed: 2, errors: 0 });
    const [ok, wrong] = out.files[0].cases;
    expect(ok).toMatchObject({ status: "pass", line: 3, actual: { decision: "allow", code: null } });
    expect(wrong).toMatchObject({
      status: "fail",
      line: 6,
      expect: { decision: "deny", rule: "write_file" },
      actual: { decision: "allow", rule: { kind: "tools.allow", value: "write_file", file: "policy.yaml" } },
      mismatches: ["decision: expected deny, got allow"],
    });
  });

  it("the live server after -- decides as the saved catalog does", async () => {
    const r = await run(
      ["policy", "test", "pass.tests.yaml", "fail.tests.yaml", "--server", "fs", "--", ...server],
      dir,
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("7 cases: 5 passed, 2 failed");
    expect(r.code).toBe(1);
  });

  it("a configuration directory: catalog save of its servers, and policy test over them live", async () => {
    const cfg = join(dir, "cfg");
    mkdirSync(join(cfg, "roles"), { recursive: true });
    writeFileSync(
      join(cfg, "mcp.json"),
      JSON.stringify({ mcpServers: { fs: { command: NODE, args: [FILESYSTEM_SERVER, srv] } } }),
    );
    writeFileSync(join(cfg, "config.yaml"), "enabled_mcp_servers: all\npolicy: ../policy.yaml\n");
    writeFileSync(join(cfg, "roles", "reader.md"), "---\nmcp_tools:\n  fs: [read_text_file]\n---\nreads\n");
    writeFileSync(
      join(dir, "cfg.tests.yaml"),
      `config_dir: cfg
cases:
  - name: a reader sees reads only
    context: {role: reader}
    list: {}
    expect: {visible: [read_text_file]}
  - name: a reader cannot write
    context: {role: reader}
    call: {tool: write_file, arguments: {path: ${srv}/a.txt, content: x}}
    expect: {decision: hidden, rule: "mcp_tools read_text_file"}
`,
    );
    const saved = await run(["catalog", "save", "--config-dir", "cfg", "--output", "cfg.catalog.json"], dir);
    expect(saved.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, "cfg.catalog.json"), "utf8")).servers)).toEqual([
      "fs",
    ]);
    const offline = await run(["policy", "test", "cfg.tests.yaml", "--catalog", "cfg.catalog.json"], dir);
    expect(offline.stdout).toBe("2 cases: 2 passed, 0 failed\n");
    const live = await run(["policy", "test", "cfg.tests.yaml"], dir);
    expect(live.stdout).toBe("2 cases: 2 passed, 0 failed\n");
    expect(live.code).toBe(0);
  });

  it("bad input exits 2: a field with its line, a catalog that is not one, a server the catalog lacks", async () => {
    writeFileSync(
      join(dir, "bad.tests.yaml"),
      "policy: policy.yaml\ncases:\n  - name: a\n    call: {tool: t}\n    expect: {decison: allow}\n",
    );
    const bad = await run(["policy", "test", "bad.tests.yaml", "--catalog", "catalog.json"], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "bad.tests.yaml:5:14: error E_POLICY_TEST_FILE cases[0].expect.decison: unknown field 'decison'",
    );
    expect(bad.stderr).toContain("did you mean 'decision'?");
    writeFileSync(join(dir, "notcat.json"), '{"servers": {}}');
    const notCatalog = await run(["policy", "test", "pass.tests.yaml", "--catalog", "notcat.json"], dir);
    expect(notCatalog.code).toBe(2);
    // A catalog that names no server is refused at its line and column.
    expect(notCatalog.stderr).toMatch(
      /notcat\.json:1:\d+: error E_CATALOG_FILE .*the catalog names no server/,
    );
    writeFileSync(
      join(dir, "other.tests.yaml"),
      "policy: policy.yaml\ncases:\n  - name: elsewhere\n    call: {server: web, tool: fetch}\n    expect: {decision: allow}\n",
    );
    const other = await run(["policy", "test", "other.tests.yaml", "--catalog", "catalog.json"], dir);
    expect(other.code).toBe(2);
    expect(other.stdout).toContain(
      "other.tests.yaml:3: E_POLICY_TEST_CONTEXT case 'elsewhere': server 'web' is not configured",
    );
  });

  it("policy init --output writes starter tests beside the policy, and they pass", async () => {
    const init = await run(["policy", "init", "--output", "starter.yaml", "--", ...server], dir);
    expect(init.code).toBe(0);
    expect(init.stderr).toContain("wrote starter tests to starter.tests.yaml");
    const text = readFileSync(join(dir, "starter.tests.yaml"), "utf8");
    expect(text).toContain('policy: "starter.yaml"');
    expect(text).toMatch(/read_text_file: allowed"\n.*\n {4}expect: \{"decision":"allow"\}/);
    expect(text).toContain('"write_file: waits for a person\'s approval"');
    const r = await run(["policy", "test", "starter.tests.yaml", "--catalog", "catalog.json"], dir);
    expect(r.stdout).toMatch(/^\d+ cases: (\d+) passed, 0 failed\n$/);
    expect(r.code).toBe(0);
    // An edit the starter tests guard against: write_file allowed without approval.
    const policy = readFileSync(join(dir, "starter.yaml"), "utf8").replace(
      /approval_required:\n( {4}- "[a-z_]+"\n)*/,
      "",
    );
    writeFileSync(join(dir, "starter.yaml"), policy);
    const edited = await run(["policy", "test", "starter.tests.yaml", "--catalog", "catalog.json"], dir);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain("FAIL 'write_file: waits for a person's approval'");
  });
});
