// Shared by the serve e2e tests: a configuration directory with the three real servers (everything,
// filesystem, memory) and the crash fixture, `toolgate serve` over stdio and over HTTP, SDK clients for both.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { configDir, mcpJson } from "./configDirHelpers.js";
import {
  CLI,
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  NODE,
  ROOT,
  tempDir,
  type Connected,
} from "./helpers.js";

export const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
export const CRASHY_SERVER = join(ROOT, "test/fixtures/serve/crashyServer.mjs");
export const TOKEN = "e2e-token-0123456789abcdef";

export interface ServeWorld {
  dir: string;
  /** The directory server-filesystem serves. */
  fsRoot: string;
  /** server-memory's graph file. */
  memoryFile: string;
  /** Where the crash fixture notes calls and cancellations. */
  crashyLog: string;
}

/**
 * everything, fs and memory enabled (and crashy when asked); fs limited by `allowedTools` in mcp.json,
 * memory to reading by config.yaml's `mcp_tools`; extra files (roles, policy …) added as given.
 */
export function serveWorld(
  options: { crashy?: boolean; files?: Record<string, string>; config?: string } = {},
): ServeWorld {
  const base = tempDir("tg-serve-");
  const fsRoot = join(base, "root");
  mkdirSync(fsRoot);
  writeFileSync(join(fsRoot, "hello.txt"), "hello from the served directory\n");
  const memoryFile = join(base, "memory.jsonl");
  const crashyLog = join(base, "crashy.log");
  const servers: Record<string, unknown> = {
    everything: { command: NODE, args: [EVERYTHING_SERVER] },
    fs: {
      command: NODE,
      args: [FILESYSTEM_SERVER, fsRoot],
      allowedTools: ["read_text_file", "list_directory", "list_allowed_directories", "write_file"],
    },
    memory: { command: NODE, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
  };
  if (options.crashy === true) {
    servers.crashy = { command: NODE, args: [CRASHY_SERVER], env: { CRASHY_LOG: crashyLog } };
  }
  const dir = configDir({
    "mcp.json": mcpJson(servers),
    "config.yaml":
      options.config ??
      "enabled_mcp_servers: all\nmcp_tools:\n  memory: [read_graph, search_nodes, open_nodes]\n",
    ...options.files,
  });
  return { dir, fsRoot, memoryFile, crashyLog };
}

/** `toolgate serve` over stdio with the official SDK client. */
export function serveStdio(
  dir: string,
  args: string[] = [],
  capabilities: ConstructorParameters<typeof Client>[1] = {},
  setup?: (client: Client) => void,
): Promise<Connected> {
  return connect({ command: NODE, args: [CLI, "serve", "--config-dir", dir, ...args] }, capabilities, setup);
}

export interface HttpServe {
  url: string;
  proc: ChildProcessWithoutNullStreams;
  stderr: () => string;
  stop: () => Promise<void>;
}

/**
 * `toolgate serve --http 0 …` on 127.0.0.1; resolves with its URL once it listens (within `startMs`: more
 * for a serve that starts servers before it listens, as a self-test does).
 */
export function serveHttp(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  startMs = 15_000,
): Promise<HttpServe> {
  const proc = spawn(NODE, [CLI, "serve", "--config-dir", dir, "--http", "0", ...args], {
    cwd: ROOT,
    env: { ...process.env, TOOLGATE_CONFIG_DIR: "", TOOLGATE_TOKEN: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), startMs);
    proc.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      const m = /serving MCP \(\w+ mode\) on (http:\/\/\S+)/.exec(stderr);
      if (m !== null) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          proc,
          stderr: () => stderr,
          stop: async () => {
            proc.kill("SIGTERM");
            const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
            await exited;
            clearTimeout(kill);
          },
        });
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${stderr}`));
    });
  });
}

/** The SDK client over Streamable HTTP with a bearer token. */
export async function httpClient(
  url: string,
  token: string,
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "toolgate-e2e", version: "1.0.0" }, capabilities);
  await client.connect(transport);
  return { client, transport };
}

export type ToolText = {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
  structuredContent?: unknown;
};

export function textOf(result: unknown): string {
  return ((result as ToolText).content ?? []).map((c) => c.text ?? "").join("");
}

export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request to `url` with exactly these headers and body (no client library in between); a header
 * given as a list is sent on one line per item.
 */
export function rawHttp(
  url: string,
  method: string,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
  options: { chunks?: Buffer[]; path?: string } = {},
): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method,
        headers,
        agent: false,
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end(body);
  });
}
