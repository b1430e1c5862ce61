// Shared by the info, list, console and wrap --config-dir e2e tests: configuration directories in temp
// folders, and the CLI run to completion with its output captured.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";

export const CATALOG_SERVER = join(ROOT, "test/fixtures/servers/catalogServer.mjs");
export const LIVE_FIXTURES = join(ROOT, "test/fixtures/live");
/** The four tools of the spec's `.info mcp-server github` example. */
export const SPEC_TOOLS = ["create_pull_request", "get_issue", "list_issues", "search_code"];

/** A temp directory holding `files` (path → text); a `from` fixture directory is copied in first. */
export function configDir(files: Record<string, string>, from?: string): string {
  const dir = tempDir("tg-cfg-");
  if (from !== undefined) cpSync(from, dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

export function mcpJson(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers }, null, 2) + "\n";
}

/** A stdio entry running the catalog fixture server with exactly `tools`. */
export function catalogEntry(tools: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: NODE, args: [CATALOG_SERVER, ...tools], ...extra };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node dist/cli.js …args` to completion (asynchronously, so servers living in this process keep serving).
 * TOOLGATE_CONFIG_DIR is cleared unless `env` sets it.
 */
export function runCli(
  args: string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLGATE_CONFIG_DIR: "", ...options.env };
  const child = spawn(NODE, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 25_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * Compares `actual` with test/fixtures/live/golden/<name>. `TOOLGATE_UPDATE_GOLDEN=1` rewrites the file instead
 * (review the diff before committing it).
 */
export function matchesGolden(actual: string, name: string): { actual: string; expected: string } {
  const file = join(LIVE_FIXTURES, "golden", name);
  if (process.env.TOOLGATE_UPDATE_GOLDEN === "1") writeFileSync(file, actual);
  return { actual, expected: readFileSync(file, "utf8") };
}
