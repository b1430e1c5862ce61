// `toolgate policy migrate` as the reference describes it: `migrate --input policy.yaml` writes the v2 form to
// disk (in place, keeping policy.yaml.v1.bak), so the reference's next CI step, `validate --deny-deprecations
// --input policy.yaml`, passes as written. The built CLI on real files, run from the policy's directory.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const cli = join(process.cwd(), "dist/cli.js");
const V1 = readFileSync(join(process.cwd(), "test/corpus/policies/spec-v1.yaml"), "utf8");
const V1_WITH_HEADER = `# our read-only policy\n${V1}`;

/** The CLI run in `cwd`, as the reference's commands are typed. */
function toolgate(cwd: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh directory holding `policy.yaml` with `text`. */
function workDir(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-migrate-"));
  writeFileSync(join(dir, "policy.yaml"), text);
  return dir;
}

const read = (dir: string, name: string): string => readFileSync(join(dir, name), "utf8");

describe("toolgate policy migrate --input policy.yaml (in place)", () => {
  it("the reference's sequence passes as written: migrate, then validate --deny-deprecations", () => {
    const dir = workDir(V1_WITH_HEADER);
    // Before: the CI step fails on the v1 file.
    expect(toolgate(dir, "policy", "validate", "--deny-deprecations", "--input", "policy.yaml").code).toBe(2);

    const migrated = toolgate(dir, "policy", "migrate", "--input", "policy.yaml");
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toBe("");
    expect(migrated.stderr).toBe(
      "toolgate: migrated policy.yaml to version 2.0 in place; the v1 original is kept as policy.yaml.v1.bak\n",
    );
    const validated = toolgate(dir, "policy", "validate", "--deny-deprecations", "--input", "policy.yaml");
    expect(validated.stderr).not.toContain("error");
    expect(validated.code).toBe(0);

    const v2 = read(dir, "policy.yaml");
    expect(v2).toMatch(/^# our read-only policy\n/);
    expect(v2).toMatch(/^version: "2\.0"$/m);
    expect(read(dir, "policy.yaml.v1.bak")).toBe(V1_WITH_HEADER);
    // Written whole through a temporary file that does not stay behind.
    expect(readdirSync(dir).sort()).toEqual(["policy.yaml", "policy.yaml.v1.bak"]);
    // The migrated file decides as the original did.
    for (const [args, code] of [
      ['{"path":"/workspace/a"}', 0],
      ['{"path":"/etc/passwd"}', 1],
    ] as const) {
      for (const file of ["policy.yaml", "policy.yaml.v1.bak"]) {
        const check = toolgate(
          dir,
          "policy",
          "check",
          "--policy",
          file,
          "--tool",
          "read_file",
          "--args",
          args,
        );
        expect(check.code).toBe(code);
      }
    }
  });

  it("a v2 file stays untouched: no rewrite, no backup, exit 0 (so a second run changes nothing)", () => {
    const dir = workDir(V1);
    expect(toolgate(dir, "policy", "migrate", "--input", "policy.yaml").code).toBe(0);
    const v2 = read(dir, "policy.yaml");
    const mtime = statSync(join(dir, "policy.yaml")).mtimeMs;
    const again = toolgate(dir, "policy", "migrate", "--input", "policy.yaml");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("");
    expect(again.stderr).toBe(
      "toolgate: policy.yaml is already version 2.0; left unchanged, no backup written\n",
    );
    expect(read(dir, "policy.yaml")).toBe(v2);
    expect(statSync(join(dir, "policy.yaml")).mtimeMs).toBe(mtime);
    expect(read(dir, "policy.yaml.v1.bak")).toBe(V1);
  });

  it("an existing policy.yaml.v1.bak is kept: refused (exit 2, nothing changed) unless --force", () => {
    const dir = workDir(V1);
    writeFileSync(join(dir, "policy.yaml.v1.bak"), "an older copy\n");
    const refused = toolgate(dir, "policy", "migrate", "--input", "policy.yaml");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "toolgate: error E_POLICY_MIGRATE_BACKUP: policy.yaml.v1.bak exists (an earlier migration's copy of the v1 file?); nothing was changed\n",
    );
    expect(refused.stderr).toContain("add --force to replace it");
    expect(read(dir, "policy.yaml")).toBe(V1);
    expect(read(dir, "policy.yaml.v1.bak")).toBe("an older copy\n");

    const forced = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--force");
    expect(forced.code).toBe(0);
    expect(read(dir, "policy.yaml.v1.bak")).toBe(V1);
    expect(read(dir, "policy.yaml")).toMatch(/^version: "2\.0"$/m);
  });

  it("--no-backup keeps no copy", () => {
    const dir = workDir(V1);
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--no-backup");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("no backup kept (--no-backup)");
    expect(readdirSync(dir)).toEqual(["policy.yaml"]);
    expect(read(dir, "policy.yaml")).toMatch(/^version: "2\.0"$/m);
  });

  it("keeps the file's mode, and rewrites the file a symbolic link names (the link stays a link)", () => {
    const dir = workDir(V1);
    chmodSync(join(dir, "policy.yaml"), 0o600);
    symlinkSync("policy.yaml", join(dir, "linked.yaml"));
    const r = toolgate(dir, "policy", "migrate", "--input", "linked.yaml");
    expect(r.code).toBe(0);
    expect(lstatSync(join(dir, "linked.yaml")).isSymbolicLink()).toBe(true);
    expect(read(dir, "policy.yaml")).toMatch(/^version: "2\.0"$/m);
    expect(statSync(join(dir, "policy.yaml")).mode & 0o777).toBe(0o600);
    expect(read(dir, "linked.yaml.v1.bak")).toBe(V1);
  });

  it("a backup that cannot be written (a directory in its place, --force): E_POLICY_MIGRATE_WRITE, exit 2, nothing changed", () => {
    const dir = workDir(V1);
    mkdirSync(join(dir, "policy.yaml.v1.bak"));
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--force");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("toolgate: error E_POLICY_MIGRATE_WRITE: cannot write policy.yaml.v1.bak: ");
    expect(read(dir, "policy.yaml")).toBe(V1);
    expect(readdirSync(dir).sort()).toEqual(["policy.yaml", "policy.yaml.v1.bak"]);
  });
});

describe("toolgate policy migrate --output / --stdout", () => {
  it("--output writes the v2 form elsewhere and leaves the input v1", () => {
    const dir = workDir(V1);
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--output", "v2.yaml");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("toolgate: wrote the version 2.0 form of policy.yaml to v2.yaml\n");
    expect(read(dir, "policy.yaml")).toBe(V1);
    expect(existsSync(join(dir, "policy.yaml.v1.bak"))).toBe(false);
    expect(toolgate(dir, "policy", "validate", "--deny-deprecations", "--input", "v2.yaml").code).toBe(0);
  });

  it("--output naming the input itself is the in-place rewrite, with its backup", () => {
    const dir = workDir(V1);
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--output", "./policy.yaml");
    expect(r.code).toBe(0);
    expect(read(dir, "policy.yaml.v1.bak")).toBe(V1);
    expect(read(dir, "policy.yaml")).toMatch(/^version: "2\.0"$/m);
  });

  it("--stdout prints the v2 form and writes no file; a v2 input is printed unchanged", () => {
    const dir = workDir(V1);
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--stdout");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^version: "2\.0"$/m);
    expect(read(dir, "policy.yaml")).toBe(V1);
    expect(readdirSync(dir)).toEqual(["policy.yaml"]);

    const v2 = '# ours\nversion: "2.0"\ntools:\n  allow: [read_file]   # reads only\n';
    writeFileSync(join(dir, "v2.yaml"), v2);
    const same = toolgate(dir, "policy", "migrate", "--input", "v2.yaml", "--stdout");
    expect(same.stdout).toBe(v2);
    expect(same.stderr).toContain("already version 2.0; printed unchanged");
  });

  it("--stdout with --output is a usage error (exit 2), nothing written", () => {
    const dir = workDir(V1);
    const r = toolgate(dir, "policy", "migrate", "--input", "policy.yaml", "--stdout", "--output", "x.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error E_USAGE: --stdout and --output both say where the v2 form goes");
    expect(readdirSync(dir)).toEqual(["policy.yaml"]);
  });
});
