// Real MCP hosts for the e2e tests, installed on first use into node_modules/.cache (kept between runs, never
// in the lockfile: they are large and only the tests drive them). Exact versions: on Node 20 an unpinned
// install quietly picks old releases.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.js";

const CACHE = join(ROOT, "node_modules", ".cache", "toolgate-e2e");

export const CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.332";
export const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** The path of the package's bin, installing the package into its own prefix when it is not there yet. */
export function installedBin(spec: string, bin: string): string {
  const prefix = join(CACHE, spec.replace(/[@/]/g, "_"));
  const path = join(prefix, "node_modules", ".bin", bin);
  if (existsSync(path)) return path;
  mkdirSync(prefix, { recursive: true });
  const install = spawnSync(
    "npm",
    ["install", "-E", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, spec],
    { encoding: "utf8", timeout: 300_000, env: { ...process.env, npm_config_loglevel: "error" } },
  );
  if (install.status !== 0 || !existsSync(path)) {
    throw new Error(`npm install ${spec} failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
  }
  return path;
}

/** Claude Code with a home of its own: no telemetry, no traffic but the servers it starts. */
export function claude(bin: string, home: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync(bin, args, {
    cwd,
    encoding: "utf8",
    timeout: 90_000,
    env: { ...claudeEnv(home), MCP_TIMEOUT: "20000" },
  });
}

/** Claude Code's environment in the tests: a home of its own, no telemetry, no updates, no other traffic. */
export function claudeEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}
