import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** `toolgate policy check --resource / --prompt` and `policy validate` on the opt-in sections, as built. */
const cli = join(process.cwd(), "dist/cli.js");

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmpFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "toolgate-items-")), name);
  writeFileSync(path, text);
  return path;
}

const policy = tmpFile(
  "p.yaml",
  [
    'version: "2.0"',
    "resources:",
    '  allow: ["file:///srv/app/*", "test://static/resource/{id}"]',
    '  deny: ["file:///srv/app/.env"]',
    "prompts:",
    '  deny: ["complex_*"]',
    "",
  ].join("\n"),
);

describe("toolgate policy check --resource / --prompt", () => {
  it("an allowed resource: exit 0, the tool decision's shape with the resource in place of the tool", () => {
    const r = run("policy", "check", "--policy", policy, "--resource", "test://static/resource/7");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["decision", "code", "resource", "reason", "rule"]);
    expect(out).toMatchObject({
      decision: "allow",
      code: null,
      resource: "test://static/resource/7",
      rule: { layer: "policy", kind: "resources.allow", value: "test://static/resource/{id}", line: 3 },
    });
  });

  it("a denied resource: exit 1 with the code and the rule", () => {
    const r = run("policy", "check", "--policy", policy, "--resource", "file:///srv/app/.env");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      decision: "deny",
      code: "E_RESOURCE_DENIED",
      rule: { kind: "resources.deny", value: "file:///srv/app/.env", line: 4, path: "resources.deny[0]" },
    });
    const outside = run("policy", "check", "--policy", policy, "--resource", "file:///srv/application");
    expect(JSON.parse(outside.stdout)).toMatchObject({ decision: "deny", code: "E_RESOURCE_NOT_ALLOWED" });
  });

  it("prompts by the five wildcard forms", () => {
    const denied = run("policy", "check", "--policy", policy, "--prompt", "complex_prompt");
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      decision: "deny",
      code: "E_PROMPT_DENIED",
      prompt: "complex_prompt",
      rule: { kind: "prompts.deny", value: "complex_*", line: 6 },
    });
    const allowed = run("policy", "check", "--policy", policy, "--prompt", "simple_prompt");
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: "allow", code: null });
  });

  it("a policy without the section allows, and says why", () => {
    const bare = tmpFile("bare.yaml", 'version: "2.0"\ntools:\n  deny: ["*"]\n');
    const r = run("policy", "check", "--policy", bare, "--prompt", "anything");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: "allow", rule: { kind: "prompts" } });
  });

  it("exactly one of --tool, --resource, --prompt", () => {
    for (const args of [[], ["--tool", "x", "--prompt", "y"]]) {
      const r = run("policy", "check", "--policy", policy, ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("give exactly one of --tool, --resource, --prompt");
    }
  });
});

describe("toolgate policy validate on the sections", () => {
  it("warns about an allow prefix not ending in / and a dead allow entry, with line and field", () => {
    const file = tmpFile(
      "lint.yaml",
      'version: "2.0"\nresources:\n  allow: ["file:///srv/app*"]\nprompts:\n  allow: ["simple_*"]\n  deny: ["*"]\n',
    );
    const r = run("policy", "validate", "--input", file, "--format", "json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(
      out.diagnostics.map((d: { code: string; line: number; path: string }) => [d.code, d.line, d.path]),
    ).toEqual([
      ["W_RESOURCE_PREFIX", 3, "resources.allow[0]"],
      ["W_ALLOW_SHADOWED", 5, "prompts.allow[0]"],
    ]);
  });

  it("refuses a resource entry with an inner star (exit 2, file:line field)", () => {
    const file = tmpFile("bad.yaml", 'version: "2.0"\nresources:\n  deny: ["file:///*/.env"]\n');
    const r = run("policy", "validate", "--input", file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:3:\d+: error E_POLICY_FIELD_VALUE resources\.deny\[0\]:/);
  });
});
