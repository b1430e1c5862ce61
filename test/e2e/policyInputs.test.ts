import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Big and unusual policy files through the built CLI, as a person meets them: a policy of 250,000 allow
 * entries validates and decides (it used to end in "Maximum call stack size exceeded" with no file or
 * code); a larger file and one nested too deep get a diagnostic naming the file and a code; a policy
 * sharing a schema through a YAML merge key (`<<: *base`) loads and decides with the merged schema.
 */
const cli = join(process.cwd(), "dist/cli.js");
const dir = mkdtempSync(join(tmpdir(), "toolgate-inputs-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  // A warning per entry of the large policy: the output is tens of megabytes.
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A line of output that starts with `file`, as a pattern. */
function at(file: string, rest: string): RegExp {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${escaped}${rest}`, "m");
}

const ENTRIES = 250_000;

describe("a policy of 250,000 allow entries", () => {
  const lines = ['version: "2.0"', "tools:", "  allow:"];
  for (let i = 0; i < ENTRIES; i++) lines.push(`    - "tool_${String(i).padStart(6, "0")}"`);
  lines.push("");
  const big = file("big.yaml", lines.join("\n"));

  it("validates: a warning per unconstrained entry, each at its line; no stack overflow", () => {
    const r = run("policy", "validate", "--input", big);
    expect(r.stderr).not.toMatch(/Maximum call stack|RangeError/);
    expect(r.stdout).toBe(`${big}: valid (version 2.0, ${ENTRIES} warnings)\n`);
    expect(r.code).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l !== "");
    expect(warnings).toHaveLength(ENTRIES);
    expect(warnings[ENTRIES - 1]).toMatch(
      at(big, `:${ENTRIES + 3}:7: warning W_UNCONSTRAINED .*'tool_249999'`),
    );
  }, 180_000);

  it("decides a call by its last entry (policy check)", () => {
    const r = run("policy", "check", "--policy", big, "--tool", "tool_249999");
    expect(r.code).toBe(0);
    const decision = JSON.parse(r.stdout);
    expect(decision).toMatchObject({ decision: "allow", tool: "tool_249999" });
    expect(decision.rule).toMatchObject({ kind: "tools.allow", value: "tool_249999", line: ENTRIES + 3 });
    const other = run("policy", "check", "--policy", big, "--tool", "tool_250000");
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout).decision).toBe("deny");
  }, 180_000);
});

describe("bounds: a diagnostic with the file and a code", () => {
  it("a file over 10 MB is E_FILE_TOO_LARGE, before any of it is parsed", () => {
    const huge = file("huge.yaml", 'version: "2.0"\n' + "#".repeat(10 * 1024 * 1024) + "\n");
    for (const args of [
      ["validate", "--input", huge],
      ["check", "--policy", huge, "--tool", "x"],
    ]) {
      const r = run("policy", ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(at(huge, ": error E_FILE_TOO_LARGE the file is 10\\.0 MB;"));
      expect(r.stdout).not.toContain('"decision"');
    }
  });

  it("nesting of 10,000 levels is E_TOO_DEEP at the line and column of the level too many", () => {
    const deep = file(
      "deep.yaml",
      `version: "2.0"\nschemas:\n  x: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`,
    );
    const r = run("policy", "validate", "--input", deep);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(at(deep, ":3:262: error E_TOO_DEEP"));
    expect(r.stderr).not.toMatch(/Maximum call stack|RangeError/);
  });
});

describe("YAML merge keys", () => {
  const shared = [
    'version: "2.0"',
    "tools:",
    "  allow: [read_file, list_directory]",
    "schemas:",
    "  read_file: &path_only",
    "    type: object",
    "    additionalProperties: false",
    "    properties: { path: { type: string, minLength: 1, maxLength: 4096, pattern: '^/workspace/' } }",
    "    required: [path]",
    "  list_directory:",
    "    <<: *path_only",
    "enforcement: { unconstrained_tools: deny }",
    "",
  ].join("\n");

  it("a schema merged with <<: *base loads and constrains the calls", () => {
    const p = file("merge.yaml", shared);
    const valid = run("policy", "validate", "--input", p);
    expect(valid.stderr).toBe("");
    expect(valid.stdout).toBe(`${p}: valid (version 2.0, 0 warnings)\n`);
    const inRoot = run(
      "policy",
      "check",
      "--policy",
      p,
      "--tool",
      "list_directory",
      "--args",
      '{"path":"/workspace/a"}',
    );
    expect(inRoot.code).toBe(0);
    const outside = run(
      "policy",
      "check",
      "--policy",
      p,
      "--tool",
      "list_directory",
      "--args",
      '{"path":"/etc"}',
    );
    expect(outside.code).toBe(1);
    expect(JSON.parse(outside.stdout).code).toBe("E_ARG_SCHEMA");
  });

  it("a key overriding a merged one is E_MERGE_OVERRIDE at its line; a merge of a scalar is E_MERGE_KEY", () => {
    const loosened = file(
      "loosened.yaml",
      shared.replace("    <<: *path_only\n", "    <<: *path_only\n    additionalProperties: true\n"),
    );
    const r = run("policy", "validate", "--input", loosened);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      at(loosened, ":12:5: error E_MERGE_OVERRIDE schemas\\.list_directory\\.additionalProperties:"),
    );
    const scalar = file("scalar.yaml", 'version: "2.0"\ntools:\n  <<: 5\n');
    const s = run("policy", "validate", "--input", scalar);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(at(scalar, ":3:\\d+: error E_MERGE_KEY"));
  });
});
