import type { SourceRef } from "./source.js";
/** Tool-name pattern lists and per-server whitelist maps as the configuration files give them (config/patternList.ts parses them). */

/** One tool-name pattern as written. An invalid one (`problem` set) is kept so views can show it; it matches nothing. */
export interface PatternSource {
  /** The pattern text; for a value that is not a string, its source text. */
  source: string;
  /** `null` when a `.set` command wrote the pattern. */
  at: SourceRef | null;
  /** Why the value cannot be a pattern, or null. */
  problem: string | null;
}

/** One entry of an `mcp_tools` map: a server name or a `mapping_mcp_servers` alias. */
export interface ToolsMapEntry {
  key: string;
  /** `null` when a `.set` command wrote the entry. */
  keyAt: SourceRef | null;
  /** `[]` blocks every tool of the server. */
  patterns: PatternSource[];
}

/** A level's `mcp_tools` map, in file order. An empty map and an absent one both restrict nothing. */
export type ToolsMap = ToolsMapEntry[];

/** A server (or alias) name as written in a list, with where it was written. */
export interface NameRef {
  name: string;
  at: SourceRef;
}

/** Which servers a level enables: every configured server, or the named servers and aliases. */
export type ServerSelection = { all: true; at: SourceRef } | { all: false; names: NameRef[]; at: SourceRef };
