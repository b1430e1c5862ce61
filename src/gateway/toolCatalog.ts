import type { ToolDefinition } from "../policy/gate.js";
import { isJsonObject } from "./jsonRpc.js";
import type { AnsweredRequest } from "./privateRequests.js";
import { RawSchemaTexts } from "./rawSchemaTexts.js";

/** A server tool as listed: the fields decisions use, plus whatever else the server sent. */
export type ListedTool = ToolDefinition & Record<string, unknown>;

const MAX_PAGES = 1000;
const MAX_ATTEMPTS = 3;

/**
 * The server's tool catalog as toolgate itself fetched it (every page), so call decisions never depend on
 * what the client chose to list. `notifications/tools/list_changed` marks it stale; the next call waits for
 * a refetch. A failed fetch leaves no catalog at all rather than an old one that may no longer be true.
 */
export class ToolCatalog {
  private tools: ReadonlyMap<string, ListedTool> | null = null;
  /** Schema texts cut from the raw text of each page of the current catalog. */
  private schemaTexts: RawSchemaTexts | null = null;
  private failure: string = "the catalog has not been fetched yet";
  /** Bumped by every list_changed. */
  private epoch = 0;
  /** The epoch at which the current catalog's fetch started. */
  private fetchedEpoch = -1;
  private inFlight: Promise<void> | null = null;
  private noTools = false;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<AnsweredRequest>,
    private readonly log: (line: string) => void,
    /** Told about every catalog fetched (e.g. to warn about whitelist patterns that match none of it). */
    private readonly onFetched?: (tools: ReadonlyMap<string, ListedTool>) => void,
  ) {}

  /** The server did not declare the `tools` capability: it has no tools, nothing to fetch. */
  setNoTools(): void {
    this.noTools = true;
    this.tools = new Map();
    this.schemaTexts = null;
    this.fetchedEpoch = this.epoch;
  }

  markStale(): void {
    if (this.noTools) return;
    this.epoch++;
  }

  get fresh(): boolean {
    return this.tools !== null && this.fetchedEpoch === this.epoch;
  }

  /** The tools, or why there are none to decide with. */
  current(): { ok: true; tools: ReadonlyMap<string, ListedTool> } | { ok: false; reason: string } {
    return this.tools === null ? { ok: false, reason: this.failure } : { ok: true, tools: this.tools };
  }

  /**
   * The tool's inputSchema as the raw JSON text the server sent in the current catalog (what exact pins are
   * checked against), `undefined` when that text is not available. Cut from the page texts on first use.
   */
  exactSchemaText(name: string): string | undefined {
    return this.schemaTexts?.get(name);
  }

  /** Refetches until the catalog is at least as new as the last list_changed (bounded), or a fetch fails. */
  async ensureFresh(): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.fresh; attempt++) {
      await this.refresh();
      if (this.tools === null) return;
    }
  }

  refresh(): Promise<void> {
    if (this.noTools) return Promise.resolve();
    if (this.inFlight !== null) return this.inFlight;
    const epoch = this.epoch;
    this.inFlight = this.fetchAll()
      .then(
        ({ tools, pageTexts }) => {
          this.tools = tools;
          this.schemaTexts = new RawSchemaTexts(pageTexts, this.log);
          this.fetchedEpoch = epoch;
          try {
            this.onFetched?.(tools);
          } catch (error) {
            this.log(`catalog listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
        (error: unknown) => {
          this.tools = null;
          this.schemaTexts = null;
          this.failure = `could not fetch the server's tool catalog: ${error instanceof Error ? error.message : String(error)}`;
          this.log(this.failure);
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async fetchAll(): Promise<{ tools: Map<string, ListedTool>; pageTexts: (string | undefined)[] }> {
    const tools = new Map<string, ListedTool>();
    const pageTexts: (string | undefined)[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { response, text } = await this.fetchPage(cursor);
      pageTexts.push(text);
      if (response.error !== undefined) {
        throw new Error(`tools/list answered error ${response.error.code}: ${response.error.message}`);
      }
      const result = response.result;
      if (!isJsonObject(result) || !Array.isArray(result.tools))
        throw new Error("tools/list result has no tools array");
      for (const tool of result.tools) {
        if (!isJsonObject(tool) || typeof tool.name !== "string") {
          this.log("ignoring a malformed entry in the server's tools/list (no string name)");
          continue;
        }
        if (tools.has(tool.name)) {
          // Two definitions under one name: keep the first, as the client sees them in list order.
          this.log(`the server lists tool '${tool.name}' twice; using the first definition`);
          continue;
        }
        tools.set(tool.name, tool as ListedTool);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) return { tools, pageTexts };
      if (typeof next !== "string") throw new Error("tools/list nextCursor is not a string");
      cursor = next;
    }
    throw new Error(`tools/list did not end after ${MAX_PAGES} pages`);
  }
}
