/**
 * The shared model of `toolgate policy import`: each format's reader (one file per format) turns a
 * client's configuration text into an {@link ImportedPolicy} for one MCP server plus the list of what it
 * could not carry over exactly. Readers are pure (text in, model out) so the tests can check every
 * decision against a reference implementation of the client's own rules without touching a disk.
 */

import { unknownNameHint } from "../../../engine/text/didYouMean.js";

export const IMPORT_FORMATS = ["claude-code", "gemini", "codex", "vscode"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Where something is in the source file; 1-based. Absent when the format's parser gives no position. */
export interface Spot {
  line?: number;
  column?: number;
}

/** One toolgate pattern and the source rule it came from (written as a comment next to it). */
export interface ImportedEntry {
  pattern: string;
  from: string;
}

export interface ImportedPolicy {
  format: ImportFormat;
  file: string;
  server: string;
  /** `null`: no allowlist (every tool not denied is allowed); `[]`: nothing is allowed. */
  allow: ImportedEntry[] | null;
  deny: ImportedEntry[];
  approvalRequired: ImportedEntry[];
  /** Header comment lines: how the client decides, and how that was mapped for this file. */
  notes: string[];
}

/** Something the import could not carry over exactly: what, where, why, and what was done instead. */
export interface ReportItem extends Spot {
  item: string;
  why: string;
}

export interface ImportOutcome {
  policy: ImportedPolicy;
  report: ReportItem[];
  /** Rules or entries about other tools or servers: ignored on purpose, counted in one summary line. */
  ignored: string[];
  /**
   * The client does not start the server at all, by this setting: the policy allows nothing, and the
   * summary says the server was skipped and why. `sure: false` when the setting may not reach the server
   * (the report then says why, and the policy keeps the stricter reading).
   */
  switchedOff?: { by: string; sure: boolean };
}

/** Bad input (exit 2): the file does not parse, has the wrong shape, or the server cannot be chosen. */
export class ImportInputError extends Error {
  constructor(
    message: string,
    readonly spot: Spot = {},
    readonly hint?: string,
  ) {
    super(message);
    this.name = "ImportInputError";
  }
}

/**
 * The server to import: the one asked for, or the only one the file names. `applies` says whether the
 * file has anything for a server it does not name (a Claude `mcp__*` deny rule applies to every server).
 */
export function chooseServer(
  found: readonly string[],
  requested: string | undefined,
  applies: (server: string) => boolean = () => false,
): string {
  const list = found.length === 0 ? "none" : found.join(", ");
  if (requested !== undefined) {
    if (found.includes(requested) || applies(requested)) return requested;
    throw new ImportInputError(
      `nothing in the file is about server '${requested}'`,
      {},
      unknownNameHint(requested, found, "servers found", "servers found: none"),
    );
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    throw new ImportInputError("the file names no MCP server", {}, "name the server with --server NAME");
  }
  throw new ImportInputError(
    `the file names ${found.length} MCP servers; choose one with --server`,
    {},
    `servers found: ${list}`,
  );
}

/** Appends entries whose pattern is not already in the list (first one wins, keeping its comment). */
export function addEntries(list: ImportedEntry[], entries: readonly ImportedEntry[]): void {
  for (const entry of entries) {
    if (!list.some((e) => e.pattern === entry.pattern)) list.push(entry);
  }
}

/** `line 4`, or nothing when the line is unknown: for the comments of the policy file. */
export function lineNote(spot: Spot): string {
  return spot.line === undefined ? "" : ` (line ${spot.line})`;
}

/**
 * Gemini, Codex and VS Code match tool names exactly, but a `*` at either end of a toolgate pattern is a
 * wildcard: such an entry would say something else here. No MCP tool name has a `*` (the spec's names are
 * letters, digits, `_`, `-` and `.`), so the entry matches no real tool there; it is reported, not carried.
 */
export function starredName(name: string): boolean {
  return name.includes("*");
}

export const STARRED_WHY =
  "the client matches names exactly, so this names a tool literally called so; in toolgate a '*' would be a wildcard; not carried";
