import { diagnosticAt, formatDiagnostic } from "../engine/model/diagnostics.js";
import type { PatternEntry } from "../engine/model/policy.js";
import { catalogToolContext, type ServerView } from "./serverView.js";
import type { CatalogSnapshot } from "./toolCatalog.js";

/**
 * What a session says about each catalog its servers' connections fetched (dead whitelist patterns, pins
 * left without their tool, tools withheld for drift, deny entries no tool matches), each change once: the
 * operator reads them on stderr, and a warning repeated on every fetch would drown the rest.
 */
export class CatalogWarnings {
  /** Per server, the catalog warnings last logged (each change is said once). */
  private readonly saidWarnings = new Map<ServerView, string>();
  /** Per server, the tools.deny entries its last catalog left unmatched; and the warning last said. */
  private readonly unmatchedDeny = new Map<ServerView, readonly PatternEntry[]>();
  private saidUnmatched = "";

  /** `servers`: how many servers the session fronts (a deny entry is unmatched once all their catalogs are). */
  constructor(
    private readonly servers: number,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Each catalog a server's connection fetched: the warnings about it (dead whitelist patterns, pins left
   * without their tool, tools withheld for drift), said once for as long as they stay the same.
   */
  catalogFetched(server: ServerView, snapshot: CatalogSnapshot): void {
    const names = [...snapshot.tools.keys()];
    const lines = server.gate.catalogWarnings?.(names, server.serverId()) ?? [];
    for (const [name, tool] of snapshot.tools) {
      const verdict = server.gate.visibility(tool, catalogToolContext(server, snapshot, name));
      if (!verdict.visible && verdict.code === "E_TOOL_DRIFT") {
        lines.push(`withholding tool '${name}' (E_TOOL_DRIFT): ${verdict.reason}`);
      }
    }
    this.noteUnmatchedDeny(server, names);
    const text = lines.join("\n");
    if (text === (this.saidWarnings.get(server) ?? "")) return;
    this.saidWarnings.set(server, text);
    const prefix = server.name === null ? "" : `[${server.name}] `;
    for (const line of lines) this.log(`${prefix}${line}`);
  }

  /** W_DENY_UNMATCHED: once every server's catalog is in, the deny entries no tool of any of them matches. */
  private noteUnmatchedDeny(server: ServerView, names: readonly string[]): void {
    const entries = server.gate.unmatchedDeny?.(names);
    if (entries === undefined) return;
    this.unmatchedDeny.set(server, entries);
    const servers = this.servers;
    if (this.unmatchedDeny.size < servers) return;
    const lists = [...this.unmatchedDeny.values()].map((l) => new Set(l.map(entryKey)));
    const none = entries.filter((e) => lists.every((keys) => keys.has(entryKey(e))));
    const lines = none.map((e) =>
      formatDiagnostic(
        diagnosticAt(
          "warning",
          "W_DENY_UNMATCHED",
          e.at,
          `tools.deny entry '${e.pattern}' matches no tool of ${servers > 1 ? `any of the ${servers} servers` : "the server"}, so it denies nothing (a typo?)`,
          "correct the name (toolgate info <server> lists them) or remove the entry",
        ),
      ),
    );
    const text = lines.join("\n");
    if (text === this.saidUnmatched) return;
    this.saidUnmatched = text;
    for (const line of lines) this.log(line);
  }
}

function entryKey(e: PatternEntry): string {
  return `${e.pattern}\u0000${e.at.file}:${e.at.line}:${e.at.column}`;
}
