// The self-test's report: one line per failing case with its file:line (the `policy test` lines), then one
// E_SELF_TEST_FAILED line ending in what the refusal means; a passing run prints one I_ line and returns [].
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PolicyCatalog } from "../../../src/config/catalogFile.js";
import { loadPolicyFile } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { runSelfTest } from "../../../src/cli/selfTest/selfTestRun.js";
import type { LogFields } from "../../../src/engine/model/logFields.js";

const dir = mkdtempSync(join(tmpdir(), "tg-self-test-"));
writeFileSync(join(dir, "policy.yaml"), 'version: "2.0"\ntools:\n  allow: [read_file]\n');
const { policy } = loadPolicyFile(join(dir, "policy.yaml"));
const gate = createPolicyGate(compilePolicy(policy!));
const catalog: PolicyCatalog = new Map([
  ["fs", { tools: [{ name: "read_file" }, { name: "write_file" }], rawSchemas: new Map() }],
]);

function file(name: string, yaml: string): { path: string; shown: string } {
  writeFileSync(join(dir, name), yaml);
  return { path: join(dir, name), shown: name };
}

async function selfTest(f: { path: string; shown: string; at?: never }, read = catalog) {
  const printed: Array<[string, LogFields | undefined]> = [];
  const lines = await runSelfTest(
    {
      file: f,
      subject: { kind: "gate", server: "fs", gate, policy: "policy.yaml" },
      catalogs: () => Promise.resolve(read),
    },
    "the server was not started",
    (line, fields) => printed.push([line, fields]),
  );
  return { lines, printed };
}

describe("runSelfTest", () => {
  it("passes: one I_SELF_TEST_PASSED line, nothing to refuse", async () => {
    const { lines, printed } = await selfTest(
      file(
        "pass.yaml",
        "cases:\n  - name: reads\n    call: {tool: read_file}\n    expect: {decision: allow}\n",
      ),
    );
    expect(lines).toEqual([]);
    expect(printed).toEqual([
      ["self-test pass.yaml: 1 case: 1 passed, 0 failed", { code: "I_SELF_TEST_PASSED" }],
    ]);
  });

  it("fails: the failing case's file:line, then the verdict with the first failure and the consequence", async () => {
    const f = file(
      "fail.yaml",
      `cases:
  - name: reads
    call: {tool: read_file}
    expect: {decision: allow}
  - name: writes are allowed
    call: {tool: write_file}
    expect: {decision: allow}
`,
    );
    const { lines, printed } = await selfTest(f);
    expect(lines).toEqual([
      `${f.path}:5: FAIL 'writes are allowed': expected decision allow; got decision hidden, code E_TOOL_NOT_ALLOWED, rule tools.allow (no entry matches) (decision: expected allow, got hidden)`,
      `error E_SELF_TEST_FAILED: the self-test fail.yaml did not pass (2 cases: 1 passed, 1 failed; first: ${f.path}:5 'writes are allowed'); the server was not started`,
    ]);
    expect(printed.map(([, fields]) => fields?.code)).toEqual(["E_POLICY_TEST_FAILED", undefined]);
  });

  it("a case that cannot be decided refuses too (E_POLICY_TEST_CONTEXT)", async () => {
    const f = file(
      "context.yaml",
      "cases:\n  - name: other\n    list: {server: web}\n    expect: {visible: []}\n",
    );
    const { lines } = await selfTest(f);
    expect(lines[0]).toBe(
      `${f.path}:2: E_POLICY_TEST_CONTEXT case 'other': server 'web' is not configured (hint: servers: fs)`,
    );
    expect(lines[1]).toMatch(/^error E_SELF_TEST_FAILED: .*1 could not be run/);
  });

  it("a file that is not there, or has errors: could not run", async () => {
    const missing = await selfTest({ path: join(dir, "nope.yaml"), shown: "nope.yaml" });
    expect(missing.lines).toEqual([
      `${join(dir, "nope.yaml")}: error E_POLICY_TEST_FILE the self-test file ${join(dir, "nope.yaml")} does not exist (hint: check the path given with --self-test)`,
      "error E_SELF_TEST_FAILED: the self-test nope.yaml could not run (see above); the server was not started",
    ]);
    const bad = await selfTest(file("bad.yaml", "cases:\n  - name: x\n    lsit: {}\n"));
    expect(bad.lines[0]).toMatch(/bad\.yaml:3:5: error E_POLICY_TEST_FILE .*'lsit'/);
    expect(bad.lines.at(-1)).toMatch(/could not run/);
  });
});
