import type { SeenTool } from "../engine/policy/explain.js";
import type { ItemCatalog } from "../engine/policy/itemViews.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";

/**
 * The live catalogs the matrix is drawn from. Fetching one starts (or connects to) the server exactly as
 * `toolgate info` does (the command injects that code path as {@link FetchCatalog}), which takes from tens of
 * milliseconds to seconds; so a catalog is kept for a while (`--catalog-ttl`) and shared by every context and
 * page of the matrix, and concurrent views wait on one fetch instead of starting the server once each. A
 * failure is kept as long, so a dead server is not restarted on every page view; "Fetch catalogs again"
 * drops everything.
 */

export interface FetchedCatalog {
  /** e.g. `["tools", "resources"]`. */
  capabilities: string[];
  /** Every tool's name, in list order. */
  names: string[];
  /** The definitions as listed, by name, with what the pin stage needs (so pins judge what the gate judges). */
  seen: ReadonlyMap<string, SeenTool>;
  /**
   * Its resources, templates and prompts, for a policy's resources:/prompts: sections; `null` when they
   * could not be listed (the matrix says so rather than show them as absent). Absent: not fetched.
   */
  items?: ItemCatalog | null;
}

export type FetchCatalog = (server: McpServerConfig, dir: string) => Promise<FetchedCatalog>;

export type CatalogResult =
  | { ok: true; catalog: FetchedCatalog; fetchedAt: number }
  | { ok: false; code: string; message: string; hint?: string; fetchedAt: number };

interface Entry {
  result: Promise<CatalogResult>;
  startedAt: number;
}

/** What reaches the server: an edited command, URL or header must not be answered from the old entry. */
function reachKey(server: McpServerConfig, dir: string): string {
  const { at: _at, allowedTools: _tools, allowedToolsAt: _toolsAt, ...reach } = server;
  return JSON.stringify([dir, reach]);
}

export class CatalogCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetch: FetchCatalog,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(server: McpServerConfig, dir: string): Promise<CatalogResult> {
    const k = reachKey(server, dir);
    const known = this.entries.get(k);
    if (known !== undefined && this.now() - known.startedAt < this.ttlMs) return known.result;
    const startedAt = this.now();
    const result = this.fetch(server, dir).then(
      (catalog): CatalogResult => ({ ok: true, catalog, fetchedAt: this.now() }),
      (error: unknown): CatalogResult => {
        const e = error as { code?: unknown; message?: unknown; hint?: unknown };
        return {
          ok: false,
          code: typeof e.code === "string" ? e.code : "E_UPSTREAM_CONNECT",
          message: typeof e.message === "string" ? e.message : String(error),
          ...(typeof e.hint === "string" ? { hint: e.hint } : {}),
          fetchedAt: this.now(),
        };
      },
    );
    this.entries.set(k, { result, startedAt });
    return result;
  }

  clear(): void {
    this.entries.clear();
  }
}
