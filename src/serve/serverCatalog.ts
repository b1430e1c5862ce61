import type { ListedToolCatalog } from "../gateway/upstream.js";
import { RawSchemaTexts } from "../gateway/rawSchemaTexts.js";
import type { ToolDefinition } from "../policy/gate.js";

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

const MAX_ATTEMPTS = 3;

/**
 * One server's tool catalog as toolgate itself fetched it (every page, with each page's raw text), so
 * decisions never depend on what a client chose to list. `tools/list_changed` marks it stale and the next
 * decision waits for the refetch; a failed fetch leaves no catalog rather than an old one that may no longer
 * be true.
 */
export class ServerCatalog {
  private snapshot: CatalogSnapshot | null = null;
  private failure = "the catalog has not been fetched yet";
  /** Bumped by every list_changed. */
  private epoch = 0;
  /** The epoch at which the current catalog's fetch started. */
  private fetchedEpoch = -1;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly fetchAll: () => Promise<ListedToolCatalog>,
    private readonly log: (line: string) => void,
    private readonly onFetched?: (tools: ReadonlyMap<string, CatalogTool>) => void,
  ) {}

  markStale(): void {
    this.epoch++;
  }

  get fresh(): boolean {
    return this.snapshot !== null && this.fetchedEpoch === this.epoch;
  }

  current(): { ok: true; catalog: CatalogSnapshot } | { ok: false; reason: string } {
    return this.snapshot === null
      ? { ok: false, reason: this.failure }
      : { ok: true, catalog: this.snapshot };
  }

  /** Refetches until the catalog is at least as new as the last list_changed (bounded), or a fetch fails. */
  async ensureFresh(): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.fresh; attempt++) {
      await this.refresh();
      if (this.snapshot === null) return;
    }
  }

  refresh(): Promise<void> {
    if (this.inFlight !== null) return this.inFlight;
    const epoch = this.epoch;
    this.inFlight = this.fetchAll()
      .then(
        (listed) => {
          const tools = new Map<string, CatalogTool>();
          // The first definition wins for a repeated name, as the client would see them in list order.
          for (const tool of listed.tools as CatalogTool[])
            if (!tools.has(tool.name)) tools.set(tool.name, tool);
          const schemaTexts = new RawSchemaTexts(listed.pageTexts, this.log);
          this.snapshot = { tools, exactSchemaText: (name) => schemaTexts.get(name) };
          this.fetchedEpoch = epoch;
          try {
            this.onFetched?.(tools);
          } catch (error) {
            this.log(`catalog listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
        (error: unknown) => {
          this.snapshot = null;
          this.failure = `could not fetch the server's tool catalog: ${error instanceof Error ? error.message : String(error)}`;
          this.log(this.failure);
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }
}
