import type { ToolDefinition } from "../engine/model/gate.js";
import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import type { AnsweredRequest } from "../wrap/privateRequests.js";
import { FreshCatalog } from "./freshCatalog.js";
import { RawSchemaTexts } from "./rawSchemaTexts.js";

/** A server tool as listed: the fields decisions use, plus whatever else the server sent. */
export type ListedTool = ToolDefinition & Record<string, unknown>;

const MAX_PAGES = 1000;

interface ToolSnapshot {
  tools: ReadonlyMap<string, ListedTool>;
  /** Schema texts cut from the raw text of each page (null for a server without tools). */
  schemaTexts: RawSchemaTexts | null;
}

/**
 * The server's tool catalog as toolgate itself fetched it (every page), so call decisions never depend on
 * what the client chose to list. Freshness (list_changed, refetch, failure) is FreshCatalog's.
 */
export class ToolCatalog {
  private readonly state: FreshCatalog<ToolSnapshot>;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<AnsweredRequest>,
    private readonly log: (line: string) => void,
    /** Told about every catalog fetched (e.g. to warn about whitelist patterns that match none of it). */
    onFetched?: (tools: ReadonlyMap<string, ListedTool>) => void,
  ) {
    this.state = new FreshCatalog<ToolSnapshot>(
      async () => {
        const { tools, pageTexts } = await this.fetchAll();
        return { tools, schemaTexts: new RawSchemaTexts(pageTexts, log) };
      },
      log,
      onFetched === undefined ? undefined : (snapshot) => onFetched(snapshot.tools),
    );
  }

  /** The server did not declare the `tools` capability: it has no tools, nothing to fetch. */
  setNoTools(): void {
    this.state.fix({ tools: new Map(), schemaTexts: null });
  }

  markStale(): void {
    this.state.markStale();
  }

  get fresh(): boolean {
    return this.state.fresh;
  }

  /** The tools, or why there are none to decide with. */
  current(): { ok: true; tools: ReadonlyMap<string, ListedTool> } | { ok: false; reason: string } {
    const current = this.state.current();
    return current.ok ? { ok: true, tools: current.snapshot.tools } : current;
  }

  /**
   * The tool's inputSchema as the raw JSON text the server sent in the current catalog (what exact pins are
   * checked against), `undefined` when that text is not available. Cut from the page texts on first use.
   */
  exactSchemaText(name: string): string | undefined {
    const current = this.state.current();
    return current.ok ? current.snapshot.schemaTexts?.get(name) : undefined;
  }

  ensureFresh(): Promise<void> {
    return this.state.ensureFresh();
  }

  refresh(): Promise<void> {
    return this.state.refresh();
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
