// The self-test's subject: runPolicyTests over the gateway's own configuration (serve) or its one gate
// (wrap) instead of what the test file names, and the catalog asked for the servers the cases name only.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PolicyCatalog } from "../../../src/config/catalogFile.js";
import { loadConfigDir } from "../../../src/config/configDir.js";
import { loadPolicyFile } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { runPolicyTests } from "../../../src/session/policyTestRun.js";

const dir = mkdtempSync(join(tmpdir(), "tg-policy-subject-"));
const cfg = join(dir, "cfg");
mkdirSync(cfg);
writeFileSync(
  join(cfg, "mcp.json"),
  JSON.stringify({ mcpServers: { fs: { command: "fs-server" }, web: { command: "web-server" } } }),
);
writeFileSync(join(cfg, "config.yaml"), "enabled_mcp_servers: all\n");
writeFileSync(join(dir, "policy.yaml"), 'version: "2.0"\ntools:\n  allow: [read_file, fetch]\n');

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
const catalog: PolicyCatalog = new Map([
  ["fs", { tools: [tool("read_file"), tool("write_file")], rawSchemas: new Map() }],
  ["web", { tools: [tool("fetch")], rawSchemas: new Map() }],
]);

function testFile(name: string, yaml: string): string {
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

function activePolicy() {
  const { policy } = loadPolicyFile(join(dir, "policy.yaml"));
  if (policy === null) throw new Error("the policy does not load");
  return { compiled: compilePolicy(policy), shownPath: "policy.yaml" };
}

// The file's own keys name things that do not exist: a self-test never reads them.
const CASES = `policy: missing.yaml
config_dir: missing-dir
cases:
  - name: reads pass
    call: {server: fs, tool: read_file}
    expect: {decision: allow}
  - name: writes are hidden
    call: {server: fs, tool: write_file}
    expect: {decision: hidden}
`;

describe("runPolicyTests with a subject (the self-test)", () => {
  it("serve's configuration and policy are tested, the file's policy: and config_dir: are not read", async () => {
    const asked: string[][] = [];
    const run = await runPolicyTests(testFile("a.tests.yaml", CASES), {
      subject: { kind: "config", config: loadConfigDir(cfg, { skills: [] }).config, policy: activePolicy() },
      catalog: (_config, named) => {
        asked.push([...named]);
        return Promise.resolve(catalog);
      },
    });
    if (!run.ok) throw new Error(JSON.stringify(run.diagnostics));
    expect(run.policy).toBe("policy.yaml");
    expect(run.results.map((r) => r.kind === "decided" && r.passed)).toEqual([true, true]);
    // Only fs is named: web's catalog is not asked for.
    expect(asked).toEqual([["fs"]]);
  });

  it("wrap's one gate: a case without server: is its server's, a case with a context cannot be decided", async () => {
    const gate = createPolicyGate(activePolicy().compiled);
    const file = testFile(
      "b.tests.yaml",
      `cases:
  - name: reads pass
    call: {tool: read_file}
    expect: {decision: allow}
  - name: a role
    context: {role: reader}
    list: {}
    expect: {visible: [read_file]}
  - name: another server
    list: {server: web}
    expect: {visible: [fetch]}
`,
    );
    const asked: string[][] = [];
    const run = await runPolicyTests(file, {
      subject: { kind: "gate", server: "fs", gate, policy: "policy.yaml" },
      catalog: (_config, named) => {
        asked.push([...named]);
        return Promise.resolve(new Map([["fs", catalog.get("fs")!]]));
      },
    });
    if (!run.ok) throw new Error(JSON.stringify(run.diagnostics));
    expect(asked).toEqual([["fs", "web"]]);
    expect(run.results.map((r) => (r.kind === "decided" ? r.passed : r.message))).toEqual([
      true,
      "the case names a context (role), and wrap decides in the one its flags give",
      "server 'web' is not configured",
    ]);
  });

  it("a catalog that cannot be read fails the run with its code and hint", async () => {
    const { ToolgateError } = await import("../../../src/engine/errors.js");
    const run = await runPolicyTests(testFile("c.tests.yaml", CASES), {
      subject: { kind: "gate", server: "fs", gate: createPolicyGate(activePolicy().compiled), policy: null },
      catalog: () =>
        Promise.reject(
          new ToolgateError("E_UPSTREAM_START", "MCP server 'fs' did not answer", "wait longer"),
        ),
    });
    expect(run).toMatchObject({
      ok: false,
      diagnostics: [{ code: "E_UPSTREAM_START", hint: "wait longer", file: join(dir, "c.tests.yaml") }],
    });
  });
});
