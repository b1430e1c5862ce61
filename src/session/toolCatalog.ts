import type { UpstreamAuthCode } from "../engine/errors.js";
import { fetchCatalogPages, type FetchCatalogPage, type ListedTool } from "./catalogPages.js";
import { FreshCatalog } from "./freshCatalog.js";
import { RawSchemaTexts } from "./rawSchemaTexts.js";

/** One fetched catalog: its tools by name, and their schemas as the server wrote them. */
export interface CatalogSnapshot {
  readonly tools: ReadonlyMap<string, ListedTool>;
  /**
   * The tool's inputSchema as the raw JSON text the server sent in this catalog (what `exact_schema_hash`
   * pins are checked against); `undefined` when that text was not recorded or cannot be read.
   */
  exactSchemaText(name: string): string | undefined;
}

/**
 * The catalog a decision is made with, or why there is none; `code` when the reason is the server's
 * credentials (a refusal then says E_UPSTREAM_AUTH…, not E_CATALOG_UNAVAILABLE).
 */
export type CatalogState =
  { ok: true; snapshot: CatalogSnapshot } | { ok: false; reason: string; code?: UpstreamAuthCode };

const NO_TOOLS: CatalogSnapshot = { tools: new Map(), exactSchemaText: () => undefined };

/**
 * A server's tool catalog as toolgate itself fetched it (every page, with each page's raw text), so call
 * decisions never depend on what a client chose to list. Freshness (list_changed, refetch, failure) is
 * FreshCatalog's; paging is fetchCatalogPages'. Used by wrap (pages over its private requests) and by every
 * upstream link of serve.
 */
export class ToolCatalog {
  private readonly state: FreshCatalog<CatalogSnapshot>;

  constructor(
    fetchPage: FetchCatalogPage,
    log: (line: string) => void,
    /** Told about every catalog fetched (the session logs its warnings: dead patterns, pins, drift). */
    onFetched?: (snapshot: CatalogSnapshot) => void,
  ) {
    this.state = new FreshCatalog<CatalogSnapshot>(
      async () => {
        const { tools, pageTexts } = await fetchCatalogPages(fetchPage, log);
        const texts = new RawSchemaTexts(pageTexts, log);
        return { tools, exactSchemaText: (name) => texts.get(name) };
      },
      log,
      onFetched,
    );
  }

  /** The server did not declare the `tools` capability: it has no tools, nothing to fetch. */
  setNoTools(): void {
    this.state.fix(NO_TOOLS);
  }

  markStale(): void {
    this.state.markStale();
  }

  get fresh(): boolean {
    return this.state.fresh;
  }

  current(): CatalogState {
    return this.state.current();
  }

  ensureFresh(): Promise<void> {
    return this.state.ensureFresh();
  }

  refresh(): Promise<void> {
    return this.state.refresh();
  }
}
