import type { ToolDefinition } from "../policy/gate.js";

/** A server tool as listed: the fields decisions use, plus whatever else the server sent. */
export type CatalogTool = ToolDefinition & Record<string, unknown>;

const MAX_ATTEMPTS = 3;

/**
 * One server's tool catalog as toolgate itself fetched it (every page), so decisions never depend on what a
 * client chose to list. `tools/list_changed` marks it stale and the next decision waits for the refetch; a
 * failed fetch leaves no catalog rather than an old one that may no longer be true.
 */
export class ServerCatalog {
  private tools: ReadonlyMap<string, CatalogTool> | null = null;
  private failure = "the catalog has not been fetched yet";
  /** Bumped by every list_changed. */
  private epoch = 0;
  /** The epoch at which the current catalog's fetch started. */
  private fetchedEpoch = -1;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly fetchAll: () => Promise<readonly CatalogTool[]>,
    private readonly log: (line: string) => void,
    private readonly onFetched?: (tools: ReadonlyMap<string, CatalogTool>) => void,
  ) {}

  markStale(): void {
    this.epoch++;
  }

  get fresh(): boolean {
    return this.tools !== null && this.fetchedEpoch === this.epoch;
  }

  current(): { ok: true; tools: ReadonlyMap<string, CatalogTool> } | { ok: false; reason: string } {
    return this.tools === null ? { ok: false, reason: this.failure } : { ok: true, tools: this.tools };
  }

  /** Refetches until the catalog is at least as new as the last list_changed (bounded), or a fetch fails. */
  async ensureFresh(): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.fresh; attempt++) {
      await this.refresh();
      if (this.tools === null) return;
    }
  }

  refresh(): Promise<void> {
    if (this.inFlight !== null) return this.inFlight;
    const epoch = this.epoch;
    this.inFlight = this.fetchAll()
      .then(
        (list) => {
          const tools = new Map<string, CatalogTool>();
          // The first definition wins for a repeated name, as the client would see them in list order.
          for (const tool of list) if (!tools.has(tool.name)) tools.set(tool.name, tool);
          this.tools = tools;
          this.fetchedEpoch = epoch;
          try {
            this.onFetched?.(tools);
          } catch (error) {
            this.log(`catalog listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
        (error: unknown) => {
          this.tools = null;
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
