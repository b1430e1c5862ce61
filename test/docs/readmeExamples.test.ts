// The README's examples run as written: the minimal policy loads with no warning, the CI script passes
// (with `toolgate` on PATH as the installed command is), and the configuration directory lists as shown.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, NODE, ROOT, tempDir } from "../e2e/helpers.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** The first fenced block of `lang` after `heading`. */
function block(heading: string, lang: string, nth = 0): string {
  const from = readme.indexOf(heading);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const blocks = [...readme.slice(from).matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))];
  return blocks[nth]![1]!;
}

/** A directory with `toolgate` on PATH, as `npm install -g` leaves it. */
function withToolgate(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("tg-readme-");
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "toolgate"), `#!/bin/sh\nexec "${NODE}" "${CLI}" "$@"\n`);
  chmodSync(join(dir, "bin", "toolgate"), 0o755);
  return {
    dir,
    env: { PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`, HOME: dir, TOOLGATE_CONFIG_DIR: "" },
  };
}

describe("the README's examples", () => {
  it("the minimal policy loads as written, with no warning", () => {
    const { dir, env } = withToolgate();
    writeFileSync(join(dir, "policy.yaml"), block("## A minimal policy", "yaml"));
    const run = spawnSync("toolgate", ["policy", "validate", "--input", "policy.yaml"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toBe("policy.yaml: valid (version 2.0, 0 warnings)\n");
  });

  it("the CI script of the quick start passes against the minimal policy", () => {
    const { dir, env } = withToolgate();
    writeFileSync(join(dir, "policy.yaml"), block("## A minimal policy", "yaml"));
    const script = block("### 3. Check a policy in CI", "sh");
    const run = spawnSync("sh", ["-c", script], { cwd: dir, env, encoding: "utf8" });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('"code":"E_SCOPE_VIOLATION"');
  });

  it("the configuration directory of the quick start lists as shown", () => {
    const { dir, env } = withToolgate();
    const config = join(dir, "config");
    mkdirSync(config);
    writeFileSync(join(config, "mcp.json"), block("### 2. Serve a configuration directory", "json"));
    writeFileSync(join(config, "config.yaml"), block("### 2. Serve a configuration directory", "yaml"));
    const shown = block("### 2. Serve a configuration directory", "sh").split("\n")[0]!;
    const expected = shown.split("#")[1]!.trim();
    const run = spawnSync("toolgate", ["list", "--config-dir", config], { cwd: dir, env, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(expected);
  });
});
