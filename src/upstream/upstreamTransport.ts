import { isAbsolute, resolve } from "node:path";
import type { Readable } from "node:stream";
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { recordingTransport, type ToolsListTexts } from "./rawRecording.js";
import { authFetch, type UpstreamAuth } from "./upstreamAuth.js";
import { OWN_CREDENTIALS } from "./upstreamCredentials.js";

/**
 * How toolgate reaches one mcp.json entry: the SDK transport for its kind (a child process for stdio,
 * Streamable HTTP, legacy HTTP+SSE), or with `recordToolsListText` the recording transports that keep each
 * `tools/list` answer's text as the server sent it (rawRecording.ts). Kept apart from the connection
 * (upstream.ts) because `pin` starts servers the same way without the SDK client's handshake.
 */

/** Where a stdio server's stderr goes: ours (`inherit`), kept for messages (`pipe`), or nowhere (`ignore`). */
export type UpstreamStderr = "inherit" | "pipe" | "ignore";

/** What of the connection's options decides the transport. */
export interface TransportOptions {
  stderr?: UpstreamStderr;
  baseDir?: string;
  recordToolsListText?: boolean;
  maxFrameBytes?: number;
  /**
   * How a remote server with token `auth` is reached (serve: per principal); absent: as the process itself
   * (client_credentials works, token_exchange is refused: there is no user token).
   */
  auth?: UpstreamAuth;
}

/** The fetch a remote server is reached with: its token added to every request when its entry has `auth`. */
export function serverFetch(server: McpServerConfig, auth?: UpstreamAuth): typeof fetch | undefined {
  const found = auth ?? OWN_CREDENTIALS.forServer(server, null);
  return found === undefined ? undefined : (authFetch(server.name, found) as typeof fetch);
}

/**
 * The SDK's stdio transport, probing in place: on its own class the SDK runs the `server/discover` probe
 * on a second, throwaway process of the same command, which would start every stdio server twice.
 */
class InPlaceStdioClientTransport extends StdioClientTransport {}

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

export interface UpstreamTransport {
  transport: Transport;
  pid(): number | null;
  /** The recorded tools/list texts, with `recordToolsListText`. */
  texts: ToolsListTexts | null;
}

export function createTransport(
  server: McpServerConfig,
  options: TransportOptions,
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
        : {
            transport: server.transport,
            url: server.url,
            headers: { ...server.headers },
            ...withFetch(serverFetch(server, options.auth)),
          };
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
          ...withFetch(serverFetch(server, options.auth)),
        }),
        pid: () => null,
        texts: null,
      };
    case "sse":
      return {
        // The SDK adds requestInit's headers to the request opening the event stream as well as to each POST.
        transport: new SSEClientTransport(new URL(server.url), {
          requestInit: { headers: { ...server.headers } },
          ...withFetch(serverFetch(server, options.auth)),
        }),
        pid: () => null,
        texts: null,
      };
  }
}

function withFetch(f: typeof fetch | undefined): { fetch?: typeof fetch } {
  return f === undefined ? {} : { fetch: f };
}
