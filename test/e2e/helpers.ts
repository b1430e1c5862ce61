// Shared by the wrap e2e tests: where things are, how to start the wrapper, how to talk to it.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The bundled CLI (`npm run build`); TOOLGATE_E2E_CLI points elsewhere when needed. */
export const CLI = process.env.TOOLGATE_E2E_CLI ?? join(ROOT, "dist/cli.js");
export const NODE = process.execPath;
export const FILESYSTEM_SERVER = join(
  ROOT,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);
export const EVERYTHING_SERVER = join(
  ROOT,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
export const FIXTURES = join(ROOT, "test/e2e/fixtures");
export const EXAMPLE_POLICY = join(ROOT, "examples/policy.yaml");

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the e2e tests`);

export function tempDir(prefix = "tg-e2e-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writePolicy(dir: string, yaml: string, name = "policy.yaml"): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

export function readAudit(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** `node dist/cli.js wrap <wrapArgs> -- <server…>` as command + args. */
export function wrapCommand(wrapArgs: string[], server: string[]): { command: string; args: string[] } {
  return { command: NODE, args: [CLI, "wrap", ...wrapArgs, "--", ...server] };
}

export interface Connected {
  client: Client;
  /** Pid of the process the client started (the wrapper, or a bare server). */
  pid: () => number | null;
  stderr: () => string;
  close: () => Promise<void>;
}

/** The official SDK client over stdio to `command args`, with the given client capabilities. */
export async function connect(
  spec: { command: string; args: string[]; env?: Record<string, string> },
  capabilities: ConstructorParameters<typeof Client>[1] = {},
  setup?: (client: Client) => void,
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    stderr: "pipe",
    cwd: ROOT,
    ...(spec.env === undefined ? {} : { env: { ...getDefaultEnvironment(), ...spec.env } }),
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, capabilities);
  setup?.(client);
  await client.connect(transport);
  return { client, pid: () => transport.pid, stderr: () => stderr, close: () => client.close() };
}

/** A tool call's outcome, whether the server answered with a result or a JSON-RPC error. */
export async function outcome(
  p: Promise<unknown>,
): Promise<{ result: unknown } | { error: { code: number; message: string } }> {
  try {
    return { result: await p };
  } catch (e) {
    const err = e as { code?: number; message?: string };
    return { error: { code: err.code ?? 0, message: err.message ?? String(e) } };
  }
}

/** The wrapper as a raw process: write bytes to its stdin, read its stdout line by line. */
export class RawWrapper {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = "";
  private waiters: Array<() => void> = [];

  constructor(spec: { command: string; args: string[] }) {
    this.proc = spawn(spec.command, spec.args, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    this.proc.stdout.on("data", (d: Buffer) => {
      this.buffer += d.toString("utf8");
      let i: number;
      while ((i = this.buffer.indexOf("\n")) >= 0) {
        this.lines.push(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 1);
      }
      this.notify();
    });
    this.proc.stderr.on("data", (d: Buffer) => {
      this.stderr += d.toString("utf8");
      this.notify();
    });
    this.proc.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => this.proc.on("exit", (code, signal) => resolve({ code, signal })));
  }

  send(data: string | Buffer): void {
    this.proc.stdin.write(data);
  }

  sendJson(message: unknown): void {
    this.send(JSON.stringify(message) + "\n");
  }

  messages(): Array<Record<string, unknown>> {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Waits until `predicate` holds over what was received so far. */
  async until<T>(predicate: () => T | undefined | false, timeoutMs = 45_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = predicate();
      if (value !== undefined && value !== false) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; stdout:\n${this.lines.join("\n")}\nstderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The response with this id (waits for it). */
  response(id: string | number | null, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.until(
      () => this.messages().find((m) => m.id === id && ("result" in m || "error" in m)),
      timeoutMs,
    );
  }

  /** Performs the MCP handshake. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    this.sendJson({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "raw", version: "1" } },
    });
    const answer = await this.response("init");
    this.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
    return answer;
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Pids of a process's direct children (Linux /proc). */
export function childPids(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text === "" ? [] : text.split(/\s+/).map(Number);
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
