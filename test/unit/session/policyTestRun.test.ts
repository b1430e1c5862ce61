// runPolicyTests resolves each case's context as serve resolves a client's: a tokens-file entry or a
// selection, over a real configuration directory (whitelist layers, enabled servers) and a policy.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PolicyCatalog } from "../../../src/config/catalogFile.js";
import { runPolicyTests } from "../../../src/session/policyTestRun.js";

const dir = mkdtempSync(join(tmpdir(), "tg-policy-run-"));
const cfg = join(dir, "cfg");
mkdirSync(join(cfg, "roles"), { recursive: true });
writeFileSync(
  join(cfg, "mcp.json"),
  JSON.stringify({ mcpServers: { fs: { command: "fs-server" }, web: { command: "web-server" } } }),
);
writeFileSync(join(cfg, "config.yaml"), "enabled_mcp_servers: [fs]\npolicy: policy.yaml\n");
writeFileSync(join(cfg, "roles", "reader.md"), "---\nmcp_tools:\n  fs: [read_*]\n---\nreads only\n");
writeFileSync(join(cfg, "policy.yaml"), 'version: "2.0"\ntools:\n  allow: [read_file, write_file]\n');
writeFileSync(join(dir, "other.yaml"), 'version: "2.0"\ntools:\n  allow: [write_file]\n');
writeFileSync(
  join(dir, "tokens.yaml"),
  `- name: ci\n  token_sha256: ${"a".repeat(64)}\n  role: reader\n- name: ops\n  token_sha256: ${"b".repeat(64)}\n  use: [dashboard]\n`,
);

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
const catalog: PolicyCatalog = new Map([
  ["fs", { tools: [tool("read_file"), tool("write_file"), tool("delete_file")], rawSchemas: new Map() }],
  ["web", { tools: [tool("fetch")], rawSchemas: new Map() }],
]);

function testFile(name: string, yaml: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

const CASES = `config_dir: cfg
cases:
  - name: default context
    list: {server: fs}
    expect: {visible: [read_file, write_file]}
  - name: the ci token is a reader
    context: {token: ci}
    list: {server: fs}
    expect: {visible: [read_file]}
  - name: a reader's write is hidden by its role
    context: {role: reader}
    call: {server: fs, tool: write_file}
    expect: {decision: hidden, rule: "mcp_tools read_*"}
  - name: web is not enabled
    call: {server: web, tool: fetch}
    expect: {decision: hidden}
`;

describe("runPolicyTests", () => {
  it("a token's context, a role, the default context and a server not enabled, each as serve decides", async () => {
    const run = await runPolicyTests(testFile("a.tests.yaml", CASES), {
      catalog,
      tokens: join(dir, "tokens.yaml"),
    });
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    expect(run.policy).toBe(join(cfg, "policy.yaml"));
    expect(run.results.map((r) => [r.case.name, r.kind === "decided" && r.passed])).toEqual([
      ["default context", true],
      ["the ci token is a reader", true],
      ["a reader's write is hidden by its role", true],
      ["web is not enabled", true],
    ]);
  });

  it("--policy wins over config.yaml's policy: and the test file's", async () => {
    const run = await runPolicyTests(testFile("b.tests.yaml", CASES), {
      catalog,
      tokens: join(dir, "tokens.yaml"),
      policy: join(dir, "other.yaml"),
    });
    if (!run.ok) throw new Error("the run failed");
    const first = run.results[0]!;
    expect(first).toMatchObject({ kind: "decided", passed: false, actual: { visible: ["write_file"] } });
  });

  it("a token the file lacks, a token without a tokens file, one that cannot call tools: unusable, with a hint", async () => {
    const file = testFile(
      "c.tests.yaml",
      `config_dir: cfg
cases:
  - name: typo
    context: {token: cj}
    list: {}
    expect: {visible: []}
  - name: operator
    context: {token: ops}
    list: {}
    expect: {visible: []}
`,
    );
    const run = await runPolicyTests(file, { catalog, tokens: join(dir, "tokens.yaml") });
    if (!run.ok) throw new Error("the run failed");
    expect(run.results.map((r) => (r.kind === "unusable" ? [r.message, r.hint] : null))).toEqual([
      [`the tokens file ${join(dir, "tokens.yaml")} has no entry named 'cj'`, "names: ci, ops"],
      ["the token 'ops' has no use: mcp (it cannot list or call tools)", undefined],
    ]);
    const without = await runPolicyTests(file, { catalog });
    if (!without.ok) throw new Error("the run failed");
    expect(without.results[0]).toMatchObject({ kind: "unusable", hint: "pass --tokens FILE" });
  });

  it("a selection without a configuration directory, a role that does not exist", async () => {
    const file = testFile(
      "d.tests.yaml",
      `policy: other.yaml
cases:
  - name: role
    context: {role: reader}
    call: {server: fs, tool: write_file}
    expect: {decision: allow}
`,
    );
    const run = await runPolicyTests(file, { catalog });
    if (!run.ok) throw new Error("the run failed");
    expect(run.results[0]).toMatchObject({
      kind: "unusable",
      message: "the context selects role, which needs a configuration directory",
    });
    const missing = await runPolicyTests(file, { catalog, configDir: cfg });
    if (!missing.ok) throw new Error("the run failed");
    const r = missing.results[0]!;
    // With the directory the role applies (its layer hides write_file before the policy would allow it).
    expect(r).toMatchObject({ kind: "decided", passed: false, actual: { decision: "hidden" } });
    const noRole = testFile(
      "e.tests.yaml",
      "config_dir: cfg\ncases:\n  - name: x\n    context: {role: writer}\n    list: {server: fs}\n    expect: {visible: []}\n",
    );
    const bad = await runPolicyTests(noRole, { catalog });
    if (!bad.ok) throw new Error("the run failed");
    expect(bad.results[0]).toMatchObject({ kind: "unusable" });
    expect(bad.results[0]!.kind === "unusable" && bad.results[0]!.message).toMatch(/writer/);
  });

  it("a file that names neither a policy nor a directory, or a policy with errors: the run fails", async () => {
    const none = await runPolicyTests(
      testFile("f.tests.yaml", "cases:\n  - name: x\n    list: {}\n    expect: {visible: []}\n"),
      { catalog },
    );
    expect(none).toMatchObject({ ok: false, diagnostics: [{ code: "E_POLICY_TEST_FILE" }] });
    writeFileSync(join(dir, "broken.yaml"), 'version: "2.0"\ntools:\n  allow: read_file\n  bogus: 1\n');
    const broken = await runPolicyTests(
      testFile(
        "g.tests.yaml",
        "policy: broken.yaml\ncases:\n  - name: x\n    list: {}\n    expect: {visible: []}\n",
      ),
      { catalog },
    );
    expect(broken.ok).toBe(false);
  });
});
