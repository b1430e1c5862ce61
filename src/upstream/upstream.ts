import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type Implementation,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/client";
import type { McpServerConfig, McpTransport } from "../engine/model/mcpServers.js";
import { ToolgateError } from "../engine/errors.js";
import { ExactNumbersTransport } from "./exactHttp.js";
import { ProgressTap } from "./progressTap.js";
import { SecretScrubber } from "./serverSecrets.js";
import { describeTarget } from "./serverTarget.js";
import type { CatalogPage } from "../session/catalogPages.js";
import { reasonOf, slowStart, withStderr } from "./connectFailure.js";
import { listToolCatalog, listToolsPage, type ListedToolCatalog } from "./toolCatalog.js";
import { createTransport, stdioLaunch, type UpstreamStderr } from "./upstreamTransport.js";
import { upstreamAuthErrorIn, type UpstreamAuth } from "./upstreamAuth.js";

export type { ListedToolCatalog } from "./toolCatalog.js";
export { stdioLaunch, type StdioLaunch, type UpstreamStderr } from "./upstreamTransport.js";

/**
 * One MCP server of mcp.json, reached with the official SDK client: stdio servers are started as child
 * processes, `http` servers are spoken to over Streamable HTTP, `sse` servers over the legacy HTTP+SSE
 * transport. Used by `info`, the console and `serve`.
 */

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
  /** How a remote server with token `auth` is reached (serve: for the session's principal); see upstreamTransport.ts. */
  auth?: UpstreamAuth;
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

export const STDERR_KEEP_CHARS = 16_384;

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

  // A server's answer or stderr may echo what it was reached with (a URL's credentials, a header, a token).
  const secrets = new SecretScrubber([server], () => options.auth?.secrets() ?? []);
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
    // Credentials that could not be had or were refused: said as they are (their words hold no secret).
    const refused = upstreamAuthErrorIn(error);
    if (refused !== null) throw refused;
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
