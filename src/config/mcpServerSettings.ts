import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { McpShare } from "../engine/model/mcpServers.js";
import type { SourceNode } from "../engine/model/source.js";
import { describeKind, entryOf } from "./sourceTree.js";

/** toolgate's own settings of an mcp.json server entry, beside what clients write: `share`, `startup_timeout`. */

/** The longest start-up an entry may ask for: a day (a typo like 60000 for 60 would otherwise hang). */
const MAX_STARTUP_TIMEOUT_S = 86_400;
const SHARE_VALUES = ["principal", "session", "all"] as const;

/** toolgate's `"share"`: who shares one connection to the server (serve); absent: its principal's sessions. */
export function parseShare(
  node: SourceNode & { kind: "map" },
  name: string,
  diagnostics: Diagnostic[],
): { share?: McpShare } {
  const entry = entryOf(node, "share");
  if (entry === undefined) return {};
  const v = entry.value;
  if (v.kind === "scalar" && (SHARE_VALUES as readonly unknown[]).includes(v.value))
    return { share: v.value as McpShare };
  diagnostics.push(
    diagnosticAt(
      "error",
      "E_FIELD_TYPE",
      v.at,
      `"share" of server '${name}' must be "principal" (one server per token, the default), "session" (one per client session) or "all" (one for every client), but this is ${describeKind(v)}`,
    ),
  );
  return {};
}

/** toolgate's `"startup_timeout"`: seconds the server may take to answer its first request. */
export function parseStartupTimeout(
  node: SourceNode & { kind: "map" },
  name: string,
  diagnostics: Diagnostic[],
): { startupTimeoutMs?: number } {
  const entry = entryOf(node, "startup_timeout");
  if (entry === undefined) return {};
  const v = entry.value;
  if (v.kind === "scalar" && typeof v.value === "number" && v.value > 0 && v.value <= MAX_STARTUP_TIMEOUT_S)
    return { startupTimeoutMs: Math.round(v.value * 1000) };
  diagnostics.push(
    diagnosticAt(
      "error",
      "E_FIELD_TYPE",
      v.at,
      `"startup_timeout" of server '${name}' must be a number of seconds above 0 and at most ${MAX_STARTUP_TIMEOUT_S} (how long the server may take to start, e.g. 120), but this is ${describeKind(v)}`,
    ),
  );
  return {};
}
