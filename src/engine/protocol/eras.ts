/**
 * The two protocol eras toolgate speaks (docs/eras.md): the **legacy** era (revisions up to 2025-11-25: an
 * `initialize` handshake opens a session that carries the client's capabilities) and the **modern** era
 * (revision 2026-07-28: no handshake and no session; every request carries the protocol version and the
 * client's capabilities in its `_meta`). Constants and types only.
 */

export type Era = "legacy" | "modern";

/** The modern revision toolgate speaks (the only one so far). */
export const MODERN_VERSION = "2026-07-28";
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];

/** Legacy revisions a client may ask for in `initialize`, newest first; the first is offered otherwise. */
export const LEGACY_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The reserved `_meta` keys of the modern era. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** JSON-RPC error codes of the modern era. */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export const LOG_LEVELS: readonly string[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** What a modern request says about its client, read from its `_meta`. */
export interface Envelope {
  version: string;
  capabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  logLevel?: string;
}

/** The methods whose results are cacheable in the modern era (they carry `ttlMs` and `cacheScope`). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** The methods whose results may be `input_required` (multi-round-trip requests). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
]);
