// The install a new user does, end to end: the package as `npm pack` makes it (only what runs: the CLI and
// its chunks, the library and its types, the docs; no benchmarks, no demo, no source maps), installed
// globally into a prefix of its own, then used: --version, a policy checked, a real server wrapped.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { connect, FILESYSTEM_SERVER, NODE, ROOT, tempDir } from "./helpers.js";

const dir = tempDir("tg-install-");
const prefix = join(dir, "global");
const bin = join(prefix, "bin", "toolgate");
let files: string[] = [];

function run(command: string, args: string[], cwd = ROOT) {
  const r = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout: 240_000,
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  // The declarations ship with the package; the rest of dist/ is what `npm test` just built (packing runs
  // no build here, so the tests around this one keep their dist/).
  run("npx", ["tsc", "-p", "tsconfig.build.json"]);
  const packed = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir]),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = packed[0]!.files.map((f) => f.path);
  run(
    "npm",
    [
      "install",
      "-g",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--prefix",
      prefix,
      join(dir, packed[0]!.filename),
    ],
    dir,
  );
}, 300_000);

describe("the package and its install", () => {
  it("ships only what runs", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "bin/toolgate.js",
        "dist/cli.js",
        "dist/index.js",
        "dist/types/index.d.ts",
        "README.md",
      ]),
    );
    expect(
      files.filter(
        (f) =>
          f.endsWith(".map") ||
          f.startsWith("dist/bench") ||
          f.startsWith("dist/examples") ||
          f.startsWith("src/"),
      ),
    ).toEqual([]);
  });

  it("puts a working toolgate on the PATH of the prefix", () => {
    expect(existsSync(bin)).toBe(true);
    expect(run(bin, ["--version"], dir).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = join(prefix, "lib", "node_modules", "toolgate");
    expect(readdirSync(installed)).toEqual(expect.arrayContaining(["bin", "dist", "docs", "README.md"]));
    expect(
      run(bin, ["policy", "validate", "--input", join(installed, "examples", "policy.yaml")], dir),
    ).toContain("valid");
  });

  it("wraps a real server from the installed command", async () => {
    const root = tempDir("tg-install-fs-");
    const c = await connect({ command: bin, args: ["wrap", "--", NODE, FILESYSTEM_SERVER, root] });
    try {
      expect((await c.client.listTools()).tools.map((t) => t.name)).toContain("list_directory");
    } finally {
      await c.close();
    }
  });
});
