import type { SourceRef } from "./source.js";
import type { PatternSource } from "./patternLists.js";
/** `mcp.json`: the servers toolgate may start or reach, and their outermost whitelist (`allowedTools`). */

export type McpTransport = "stdio" | "http" | "sse";

/** Who shares one connection to a server under serve: a token's sessions (default), each session, or all. */
export type McpShare = "principal" | "session" | "all";

interface McpServerBase {
  name: string;
  /** Where the server's key is written. */
  at: SourceRef;
  /** `null`: no `allowedTools` field (all tools allowed); `[]`: every tool blocked. */
  allowedTools: PatternSource[] | null;
  allowedToolsAt: SourceRef | null;
  /** toolgate's `"share"` (absent: `principal`). */
  share?: McpShare;
  /**
   * toolgate's `"startup_timeout"` (seconds in the file): how long the server may take to answer its first
   * request; absent: `--startup-timeout` (default 60 s).
   */
  startupTimeoutMs?: number;
}

export interface StdioServerConfig extends McpServerBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
}

/**
 * How toolgate authenticates at a remote server (`auth` in mcp.json), beside the `headers` it always sends:
 * - `token_exchange`: per principal, the OAuth principal's access token exchanged (RFC 8693) for a token
 *   whose audience is the server; the client's own token never leaves the gateway;
 * - `client_credentials`: the gateway's own token (OAuth client credentials), rotated before it expires.
 * Absent (or `{ "type": "static", "headers": … }` in the file): the `headers` alone, the same for everyone.
 */
export type UpstreamAuthConfig = TokenExchangeAuth | ClientCredentialsAuth;

interface TokenClientAuth {
  /** Where the `auth` object is written (messages name it). */
  at: SourceRef;
  clientId: string;
  /** The environment variable holding toolgate's client secret at the token endpoint. */
  clientSecretEnv: string;
  /** Where `client_secret_env` is written. */
  clientSecretEnvAt: SourceRef;
  scope: string | null;
  audience: string | null;
}

export interface TokenExchangeAuth extends TokenClientAuth {
  type: "token_exchange";
  /** `null`: the principal's issuer's, from its metadata. */
  tokenEndpoint: string | null;
  audience: string;
}

export interface ClientCredentialsAuth extends TokenClientAuth {
  type: "client_credentials";
  tokenEndpoint: string;
}

export interface RemoteServerConfig extends McpServerBase {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** Absent: the static `headers` only. */
  auth?: UpstreamAuthConfig;
}

export type McpServerConfig = StdioServerConfig | RemoteServerConfig;

export interface McpJson {
  file: string;
  /** In file order. Entries with errors are left out (and reported). */
  servers: McpServerConfig[];
}
