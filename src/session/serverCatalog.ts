import type { ListedToolCatalog } from "../upstream/upstream.js";
import { FreshCatalog } from "./freshCatalog.js";
import { RawSchemaTexts } from "./rawSchemaTexts.js";
import type { ToolDefinition } from "../engine/model/gate.js";

/** A server tool as listed: the fields decisions use, plus whatever else the server sent. */
export type CatalogTool = ToolDefinition & Record<string, unknown>;

/** One fetched catalog: its tools by name, and their schemas as the server wrote them. */
export interface CatalogSnapshot {
  readonly tools: ReadonlyMap<string, CatalogTool>;
  /**
   * The tool's inputSchema as the raw JSON text the server sent in this catalog (what `exact_schema_hash`
   * pins are checked against); `undefined` when that text was not recorded or cannot be read.
   */
  exactSchemaText(name: string): string | undefined;
}

/**
 * One server's tool catalog as toolgate itself fetched it (every page, with each page's raw text), so
 * decisions never depend on what a client chose to list. Freshness (list_changed, refetch, failure) is
 * FreshCatalog's.
 */
export class ServerCatalog {
  private readonly state: FreshCatalog<CatalogSnapshot>;

  constructor(
    fetchAll: () => Promise<ListedToolCatalog>,
    log: (line: string) => void,
    onFetched?: (tools: ReadonlyMap<string, CatalogTool>) => void,
  ) {
    this.state = new FreshCatalog(
      async () => snapshotOf(await fetchAll(), log),
      log,
      onFetched === undefined ? undefined : (snapshot) => onFetched(snapshot.tools),
    );
  }

  markStale(): void {
    this.state.markStale();
  }

  get fresh(): boolean {
    return this.state.fresh;
  }

  current(): { ok: true; catalog: CatalogSnapshot } | { ok: false; reason: string } {
    const current = this.state.current();
    return current.ok ? { ok: true, catalog: current.snapshot } : current;
  }

  ensureFresh(): Promise<void> {
    return this.state.ensureFresh();
  }

  refresh(): Promise<void> {
    return this.state.refresh();
  }
}

function snapshotOf(listed: ListedToolCatalog, log: (line: string) => void): CatalogSnapshot {
  const tools = new Map<string, CatalogTool>();
  // The first definition wins for a repeated name, as the client would see them in list order.
  for (const tool of listed.tools as CatalogTool[]) if (!tools.has(tool.name)) tools.set(tool.name, tool);
  const schemaTexts = new RawSchemaTexts(listed.pageTexts, log);
  return { tools, exactSchemaText: (name) => schemaTexts.get(name) };
}
