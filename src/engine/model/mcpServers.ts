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

export interface RemoteServerConfig extends McpServerBase {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | RemoteServerConfig;

export interface McpJson {
  file: string;
  /** In file order. Entries with errors are left out (and reported). */
  servers: McpServerConfig[];
}
