import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type Implementation,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ANY_RESULT } from "./anyResult.js";
import type { McpServerConfig, McpTransport } from "../engine/model/mcpServers.js";
import { ToolgateError } from "../engine/errors.js";
import { recordingTransport, type ToolsListTexts } from "./rawRecording.js";
import { ExactNumbersTransport } from "./exactHttp.js";
import { ProgressTap } from "./progressTap.js";
import { spawnFailure } from "./spawnFailure.js";
import { SecretScrubber } from "./serverSecrets.js";
import { describeTarget } from "./serverTarget.js";
import { fetchCatalogPages, type CatalogPage } from "../session/catalogPages.js";

/**
 * One MCP server of mcp.json, reached with the official SDK client: stdio servers are started as child
 * processes, `http` servers are spoken to over Streamable HTTP, `sse` servers over the legacy HTTP+SSE
 * transport. Used by `info`, the console and `serve`.
 */

/** Where a stdio server's stderr goes: ours (`inherit`), kept for messages (`pipe`), or nowhere (`ignore`). */
export type UpstreamStderr = "inherit" | "pipe" | "ignore";

export interface UpstreamOptions {
  /** Default `pipe`: the text is kept (the last {@link STDERR_KEEP_CHARS} characters) and added to errors. */
  stderr?: UpstreamStderr;
  /** Called with each chunk of a piped stderr as it arrives (e.g. to prefix and forward it). */
  onStderr?: (text: string) => void;
  /** Bound on every request toolgate makes on its own once connected (each tools/list page). */
  timeoutMs?: number;
  /**
   * How long the server may take to answer its first request (the start: a process that loads, an `npx`
   * that installs): the entry's `startup_timeout`, else this, else {@link DEFAULT_STARTUP_TIMEOUT_MS}.
   */
  startupTimeoutMs?: number;
  /** Relative `cwd` entries of stdio servers are resolved against this (the configuration directory). */
  baseDir?: string;
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  /** Called before the handshake, e.g. to register handlers for requests the server sends the client. */
  setup?: (client: Client) => void;
  /**
   * Keep the text of each `tools/list` answer as the server sent it (`listToolCatalog`'s `pageTexts`), for
   * `exact_schema_hash` pins: stdio servers then run under toolgate's own line transport, `http` and `sse`
   * servers under the SDK's transports with a fetch that records what they receive. Default false.
   */
  recordToolsListText?: boolean;
  /** With `recordToolsListText`: the longest line accepted from a stdio server (`--max-frame-bytes`). */
  maxFrameBytes?: number;
}

/** Every tool the server lists, and the raw text of each `tools/list` page they came from. */
export interface ListedToolCatalog {
  /** In list order across pages; the first definition wins for a repeated name. */
  tools: Tool[];
  /**
   * One entry per page, in order: the answer's JSON text as the server sent it, or `undefined` when it was
   * not recorded (without `recordToolsListText`, or when the text could not be matched to the request).
   */
  pageTexts: (string | undefined)[];
}

export interface Upstream {
  name: string;
  transport: McpTransport;
  client: Client;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions: string | undefined;
  /** The child's pid for stdio servers while it runs; null otherwise. */
  pid(): number | null;
  /** What a piped stderr has said so far (its tail); "" otherwise. */
  stderrText(): string;
  /** Every tool the server lists, following each `nextCursor`; the first definition wins for a repeated name. */
  listAllTools(): Promise<Tool[]>;
  /** As {@link listAllTools}, with the raw text of each page (see `recordToolsListText`). */
  listToolCatalog(): Promise<ListedToolCatalog>;
  /** One `tools/list` page and its raw text (see `recordToolsListText`), for a catalog that pages itself. */
  listToolsPage(cursor: string | undefined): Promise<CatalogPage>;
  /** Routes the server's progress for one forwarded request (see ProgressTap: none is lost). */
  readonly progress: ProgressTap;
  /** Resolves when the connection ends, whether by {@link close} or because the server went away. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** What clients give a server to start (30–60 s): `npx` cold starts take 20 s on a loaded machine. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;

/** The start-up limit of `server`: its `startup_timeout`, else the command's, else the default. */
export function startupTimeoutOf(server: McpServerConfig, given?: number): number {
  return server.startupTimeoutMs ?? given ?? DEFAULT_STARTUP_TIMEOUT_MS;
}

/**
 * The SDK's stdio transport, probing in place: on its own class the SDK runs the `server/discover` probe
 * on a second, throwaway process of the same command, which would start every stdio server twice.
 */
class InPlaceStdioClientTransport extends StdioClientTransport {}
export const STDERR_KEEP_CHARS = 16_384;
const STDERR_IN_MESSAGES = 2000;

/** How a stdio entry of mcp.json is started: command, args, environment and working directory. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * The SDK's inherited environment (PATH, HOME, …) plus the entry's `env` — what MCP hosts give their
 * servers, so toolgate's own secrets (a gateway token) do not leak to every server it starts — and a
 * relative `cwd` resolved against the configuration directory.
 */
export function stdioLaunch(server: McpServerConfig & { transport: "stdio" }, baseDir?: string): StdioLaunch {
  const cwd =
    server.cwd === null
      ? undefined
      : isAbsolute(server.cwd) || baseDir === undefined
        ? server.cwd
        : resolve(baseDir, server.cwd);
  return {
    command: server.command,
    args: [...server.args],
    env: { ...getDefaultEnvironment(), ...server.env },
    ...(cwd === undefined ? {} : { cwd }),
  };
}

function reasonOf(error: unknown, command?: string, env?: NodeJS.ProcessEnv): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    // spawn failures say `spawn foo ENOENT`; say what it means, and where it was looked for.
    if ((code === "ENOENT" || code === "EACCES") && /spawn/.test(error.message) && command !== undefined) {
      return spawnFailure(command, error, env ?? process.env);
    }
    return error.message;
  }
  return String(error);
}

function withStderr(reason: string, stderr: string): string {
  const tail = stderr.trim();
  if (tail === "") return reason;
  const shown = tail.length > STDERR_IN_MESSAGES ? "…" + tail.slice(-STDERR_IN_MESSAGES) : tail;
  return `${reason}; the server's stderr said:\n${shown}`;
}

interface UpstreamTransport {
  transport: Transport;
  pid(): number | null;
  /** The recorded tools/list texts, with `recordToolsListText`. */
  texts: ToolsListTexts | null;
}

function createTransport(
  server: McpServerConfig,
  options: UpstreamOptions,
  onStderr: (text: string) => void,
): UpstreamTransport {
  if (options.recordToolsListText === true) {
    const target =
      server.transport === "stdio"
        ? {
            transport: "stdio" as const,
            ...stdioLaunch(server, options.baseDir),
            stderr: options.stderr ?? "pipe",
            ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
          }
        : { transport: server.transport, url: server.url, headers: { ...server.headers } };
    const recording = recordingTransport(target, onStderr);
    return { transport: recording.transport, pid: recording.pid, texts: recording.texts };
  }
  switch (server.transport) {
    case "stdio": {
      const transport = new InPlaceStdioClientTransport({
        ...stdioLaunch(server, options.baseDir),
        stderr: options.stderr ?? "pipe",
      });
      const stream = transport.stderr as Readable | null;
      stream?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
      return { transport, pid: () => transport.pid, texts: null };
    }
    case "http":
      return {
        transport: new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: { ...server.headers } },
        }),
        pid: () => null,
        texts: null,
      };
    case "sse":
      return {
        // The SDK adds requestInit's headers to the request opening the event stream as well as to each POST.
        transport: new SSEClientTransport(new URL(server.url), {
          requestInit: { headers: { ...server.headers } },
        }),
        pid: () => null,
        texts: null,
      };
  }
}

/**
 * The SDK client toolgate reaches a server with: in whichever era the server offers (`server/discover`
 * first, `initialize` when the server does not understand it), and with a server's own `input_required`
 * results handed to the caller as they are (serve passes them on to its client).
 */
export function upstreamClient(
  info: Implementation,
  capabilities: ClientCapabilities,
  timeoutMs: number,
): Client {
  return new Client(info, {
    capabilities,
    // The probe (`server/discover`) may take as long as the whole start: a server slow to start is slow to
    // answer its first request, whichever it is.
    versionNegotiation: { mode: "auto", probe: { timeoutMs } },
    inputRequired: { autoFulfill: false },
  });
}

/**
 * Connects to `server` and completes the MCP handshake. Throws `E_UPSTREAM_CONNECT` naming the server, how it
 * was reached and why it failed (a command that does not exist, a refused connection, no answer in time, a
 * server that exited, with what its stderr said); nothing is left running after a failure.
 */
export async function connectUpstream(
  server: McpServerConfig,
  options: UpstreamOptions = {},
): Promise<Upstream> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const startupMs = startupTimeoutOf(server, options.startupTimeoutMs);
  let stderr = "";
  const { transport, pid, texts } = createTransport(server, options, (text) => {
    stderr = (stderr + text).slice(-STDERR_KEEP_CHARS);
    options.onStderr?.(text);
  });
  const client = upstreamClient(
    options.clientInfo ?? { name: "toolgate", version: "0.1.0" },
    options.capabilities ?? {},
    startupMs,
  );
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((done) => (markClosed = done));
  client.onclose = () => markClosed();
  options.setup?.(client);

  // A server's answer or stderr may echo what it was reached with (a URL's credentials, a header).
  const secrets = new SecretScrubber([server]);
  const fail = (reason: string): ToolgateError =>
    new ToolgateError(
      "E_UPSTREAM_CONNECT",
      secrets.text(
        `cannot connect to MCP server '${server.name}' (${server.transport}: ${describeTarget(server)}): ${withStderr(reason, stderr)}`,
      ),
      server.transport === "stdio"
        ? `check "command", "args" and "cwd" of '${server.name}' in mcp.json`
        : `check that the server is running and "url" of '${server.name}' in mcp.json`,
    );

  try {
    await client.connect(transport, { timeout: startupMs, maxTotalTimeout: startupMs });
  } catch (error) {
    await client.close().catch(() => {});
    // A child that died before answering has usually said why on stderr; give the pipe a moment to drain.
    await new Promise((r) => setTimeout(r, 50));
    const reason =
      server.transport === "stdio"
        ? reasonOf(error, server.command, stdioLaunch(server, options.baseDir).env)
        : reasonOf(error);
    if (/timed out/i.test(reason)) throw slowStart(server, startupMs, stderr, secrets);
    throw fail(reason);
  }
  const progress = new ProgressTap(transport);
  const capabilities = client.getServerCapabilities() ?? {};
  const serverInfo = client.getServerVersion() ?? { name: "(unnamed)", version: "" };

  return {
    name: server.name,
    transport: server.transport,
    client,
    capabilities,
    serverInfo,
    instructions: client.getInstructions(),
    pid,
    stderrText: () => stderr,
    listAllTools: async () =>
      (await listToolCatalog(server.name, client, capabilities, timeoutMs, texts, secrets)).tools,
    listToolCatalog: () => listToolCatalog(server.name, client, capabilities, timeoutMs, texts, secrets),
    listToolsPage: (cursor) => listToolsPage(client, cursor, timeoutMs, texts),
    progress,
    closed,
    close: async () => {
      // The SDK's close() only drops the connection; the server keeps the session (and whatever it holds)
      // until its own timeout. The transport's DELETE ends it now. Bounded: a server that does not answer
      // it is closed all the same.
      if (
        (transport instanceof StreamableHTTPClientTransport || transport instanceof ExactNumbersTransport) &&
        transport.sessionId !== undefined
      ) {
        await boundedBy(transport.terminateSession(), SESSION_END_MS).catch(() => {});
      }
      await client.close();
    },
  };
}

const SESSION_END_MS = 2000;

/** One message for a server that did not come up in time, naming the setting that decides it. */
function slowStart(
  server: McpServerConfig,
  startupMs: number,
  stderr: string,
  secrets: SecretScrubber,
): ToolgateError {
  const seconds = Math.round(startupMs / 100) / 10;
  return new ToolgateError(
    "E_UPSTREAM_START",
    secrets.text(
      withStderr(
        `MCP server '${server.name}' (${server.transport}: ${describeTarget(server)}) did not answer within ${seconds} s (startup_timeout); if it is only slow, give it longer: "startup_timeout": <seconds> in its mcp.json entry, or --startup-timeout <seconds>`,
        stderr,
      ),
    ),
    server.transport === "stdio"
      ? `if it never answers, check "command" and "args" of '${server.name}' in mcp.json`
      : `if it never answers, check that it runs at "url" of '${server.name}'`,
  );
}

function boundedBy(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * One `tools/list` page with the text the server sent for it (with `texts`: taken by the id of the request
 * that asked for it, whether or not the request succeeded, so nothing is left behind for an abandoned page).
 */
async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  timeoutMs: number,
  texts: ToolsListTexts | null,
): Promise<CatalogPage> {
  // Passed through as the server sent it, not checked against the SDK's Tool type (which would refuse a
  // whole page for one tool without an inputSchema): the catalog reads each entry itself.
  const list = () =>
    client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ANY_RESULT, {
      timeout: timeoutMs,
    });
  const { pending, id } = texts === null ? { pending: list(), id: undefined } : texts.capture(list);
  let text: string | undefined;
  let result: unknown;
  try {
    result = await pending;
  } finally {
    if (id !== undefined) text = texts?.take(id);
  }
  return { result, text };
}

/** The full catalog through the one pagination loop (session/catalogPages.ts); a server without `tools` has none. */
async function listToolCatalog(
  name: string,
  client: Client,
  capabilities: ServerCapabilities,
  timeoutMs: number,
  texts: ToolsListTexts | null,
  secrets: SecretScrubber,
): Promise<ListedToolCatalog> {
  if (capabilities.tools === undefined) return { tools: [], pageTexts: [] };
  try {
    const { tools, pageTexts } = await fetchCatalogPages(
      (cursor) => listToolsPage(client, cursor, timeoutMs, texts),
      () => {},
    );
    return { tools: [...tools.values()] as Tool[], pageTexts };
  } catch (error) {
    throw new ToolgateError(
      "E_UPSTREAM_TOOLS",
      secrets.text(`MCP server '${name}' could not list its tools: ${reasonOf(error)}`),
    );
  }
}

/** The capability names a server declared, in a fixed order (tools, resources, prompts, …), for the info view. */
export function capabilityNames(capabilities: ServerCapabilities): string[] {
  const order = ["tools", "resources", "prompts", "completions", "logging"];
  const present = Object.keys(capabilities).filter(
    (k) => (capabilities as Record<string, unknown>)[k] !== undefined,
  );
  const known = order.filter((k) => present.includes(k));
  const rest = present.filter((k) => !order.includes(k)).sort();
  return [...known, ...rest];
}
