import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `toolgate policy …` as a user runs it: the built CLI, real files, exit codes and output. */
const cli = join(process.cwd(), "dist/cli.js");
const corpus = join(process.cwd(), "test/corpus/policies");

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmpFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "toolgate-cli-")), name);
  writeFileSync(path, text);
  return path;
}

describe("toolgate policy check", () => {
  const policy = join(corpus, "spec-minimal-v2.yaml");

  it("prints one JSON decision and exits 0 on allow", () => {
    const r = run(
      "policy",
      "check",
      "--policy",
      policy,
      "--tool",
      "read_file",
      "--args",
      '{"path":"/workspace/a"}',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual([
      "decision",
      "code",
      "warnings",
      "tool",
      "reason",
      "rule",
      "violations",
      "obligations",
    ]);
    expect(out).toMatchObject({
      decision: "allow",
      code: null,
      warnings: [],
      tool: "read_file",
      violations: [],
    });
    expect(out.rule).toMatchObject({ layer: "policy", kind: "tools.allow", value: "read_file", line: 5 });
  });

  it("exits 1 on deny, with the rule and the violations", () => {
    const r = run(
      "policy",
      "check",
      "--policy",
      policy,
      "--tool",
      "read_file",
      "--args",
      '{"path":"/etc/passwd"}',
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      decision: "deny",
      code: "E_ARG_SCHEMA",
      rule: { kind: "schemas", value: "read_file" },
    });
    expect(out.violations).toEqual([{ path: "/path", message: 'must match pattern "^/workspace/.*"' }]);
  });

  it("denies a tool by name with E_TOOL_DENIED", () => {
    const r = run("policy", "check", "--policy", policy, "--tool", "exec");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      decision: "deny",
      code: "E_TOOL_DENIED",
      rule: { value: "exec", line: 6 },
    });
  });

  it("denies duplicate keys (exit 1) but rejects invalid JSON as bad input (exit 2)", () => {
    const dup = run(
      "policy",
      "check",
      "--policy",
      policy,
      "--tool",
      "read_file",
      "--args",
      '{"path":"/etc/x","path":"/workspace/a"}',
    );
    expect(dup.code).toBe(1);
    expect(JSON.parse(dup.stdout).code).toBe("E_ARG_SCHEMA");
    const bad = run("policy", "check", "--policy", policy, "--tool", "read_file", "--args", "{path:1}");
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/--args is not valid JSON/);
  });

  it("exits 2 for an unreadable or invalid policy, naming file and line", () => {
    const missing = run("policy", "check", "--policy", "/nonexistent/p.yaml", "--tool", "x");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/E_POLICY_READ.*\/nonexistent\/p\.yaml/);
    const invalid = tmpFile("bad.yaml", 'version: "2.0"\ntools:\n  deny: exec\n');
    const r = run("policy", "check", "--policy", invalid, "--tool", "x");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${invalid}:3:`);
    expect(r.stdout).toBe("");
  });

  it("applies limits from --prior-calls", () => {
    const limits = tmpFile("limits.yaml", 'version: "2.0"\nlimits:\n  max_tool_calls_total: 2\n');
    expect(run("policy", "check", "--policy", limits, "--tool", "t", "--prior-calls", "1").code).toBe(0);
    const r = run("policy", "check", "--policy", limits, "--tool", "t", "--prior-calls", "2");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).code).toBe("E_RATE_LIMIT");
  });

  it("exits 2 on a usage mistake", () => {
    expect(run("policy", "check", "--tool", "x").code).toBe(2);
    expect(run("policy", "nonsense").code).toBe(2);
  });
});

describe("toolgate policy validate", () => {
  it("exits 0 for a valid file and puts warnings on stderr", () => {
    const r = run("policy", "validate", "--input", join(corpus, "spec-v1.yaml"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/valid \(version 1\.0, \d+ warnings\)/);
    expect(r.stderr).toMatch(/spec-v1\.yaml:1:10: warning W_DEPRECATED_V1/);
  });

  it("with --config-dir, warns about entries written as serve names the tools (not tools.deny)", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-cli-"));
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { fs: { command: "node" } } }));
    const p = tmpFile(
      "p.yaml",
      'version: "2.0"\ntools:\n  allow: ["fs__read_file"]\n  deny: ["fs__write_file"]\n',
    );
    const plain = run("policy", "validate", "--input", p);
    expect(plain.stderr).not.toContain("W_GATEWAY_NAME");
    const r = run("policy", "validate", "--input", p, "--config-dir", dir);
    expect(r.code).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.includes("W_GATEWAY_NAME"))).toEqual([
      expect.stringMatching(
        /p\.yaml:3:\d+: warning W_GATEWAY_NAME .*tools\.allow entry 'fs__read_file' .* so it allows nothing \(hint: write 'read_file'/,
      ),
    ]);
    expect(run("policy", "validate", "--input", p, "--config-dir", join(dir, "missing")).code).toBe(2);
  });

  it("turns deprecations into errors with --deny-deprecations", () => {
    const r = run("policy", "validate", "--deny-deprecations", "--input", join(corpus, "spec-v1.yaml"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error W_DEPRECATED_V1/);
  });

  it("warns about a deny entry that looks like a glob and blocks nothing", () => {
    const p = tmpFile("p.yaml", 'version: "2.0"\ntools:\n  deny: ["read_*_file"]\n');
    const r = run("policy", "validate", "--input", p, "--format", "json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ valid: true, version: "2.0", errors: 0 });
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({ code: "W_DENY_LITERAL_STAR", line: 3, path: "tools.deny[0]" }),
    );
  });

  it("warns about unknown fields at the top level, with their line", () => {
    const p = tmpFile("p.yaml", 'version: "2.0"\nenforcment:\n  unconstrained_tools: deny\n');
    const out = JSON.parse(run("policy", "validate", "--input", p, "--format", "json").stdout);
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({ code: "W_UNKNOWN_FIELD", line: 2, path: "enforcment" }),
    );
  });

  it("exits 2 when a schema does not compile (remote $ref)", () => {
    const p = tmpFile(
      "p.yaml",
      'version: "2.0"\nschemas:\n  t:\n    $ref: "https://example.invalid/s.json"\n',
    );
    const r = run("policy", "validate", "--input", p);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/:3:3: error E_SCHEMA_COMPILE schemas\.t/);
  });
});

describe("toolgate policy migrate", () => {
  it("--check exits 1 for v1 and 0 for v2", () => {
    expect(run("policy", "migrate", "--check", "--input", join(corpus, "spec-v1.yaml")).code).toBe(1);
    expect(run("policy", "migrate", "--check", "--input", join(corpus, "spec-minimal-v2.yaml")).code).toBe(0);
  });

  it("writes a v2 file that validates without deprecations and decides alike", () => {
    const out = join(mkdtempSync(join(tmpdir(), "toolgate-mig-")), "v2.yaml");
    const r = run("policy", "migrate", "--input", join(corpus, "spec-v1.yaml"), "--output", out);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(readFileSync(out, "utf8")).toMatch(/^version: "2\.0"/m);
    expect(run("policy", "validate", "--deny-deprecations", "--input", out).code).toBe(0);
    for (const [args, expected] of [
      ['{"path":"/workspace/a"}', 0],
      ['{"path":"/etc/passwd"}', 1],
    ] as const) {
      const before = run(
        "policy",
        "check",
        "--policy",
        join(corpus, "spec-v1.yaml"),
        "--tool",
        "read_file",
        "--args",
        args,
      );
      const after = run("policy", "check", "--policy", out, "--tool", "read_file", "--args", args);
      expect(before.code).toBe(expected);
      expect(after.code).toBe(expected);
      expect(JSON.parse(after.stdout).code).toBe(JSON.parse(before.stdout).code);
    }
  }, 90_000);
});
