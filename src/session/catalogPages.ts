import type { ToolDefinition } from "../engine/model/gate.js";
import { ToolgateError } from "../engine/errors.js";
import { isJsonObject } from "../engine/rpc/jsonRpc.js";

/** A server tool as listed: the fields decisions use, plus whatever else the server sent. */
export type ListedTool = ToolDefinition & Record<string, unknown>;

/** One `tools/list` page: the result the server gave, and its answer's JSON text when that was recorded. */
export interface CatalogPage {
  result: unknown;
  text?: string | undefined;
}

/** Asks the server for one page (`cursor` absent: the first); rejects when the server answered an error. */
export type FetchCatalogPage = (cursor: string | undefined) => Promise<CatalogPage>;

/** Every tool the server lists, and the text of each page they came from. */
export interface FetchedCatalog {
  /** By name, in list order across pages; the first definition wins for a repeated name. */
  tools: Map<string, ListedTool>;
  /** One entry per page, in order; `undefined` where the text was not recorded. */
  pageTexts: (string | undefined)[];
}

export const MAX_CATALOG_PAGES = 1000;

/**
 * The one pagination loop of toolgate: page after page until no `nextCursor`, bounded in pages, refusing a
 * cursor that comes back (a server that would page forever) and a result without a tools array. Entries
 * without a string name are left out and logged; a repeated name keeps its first definition, as the client
 * sees them in list order.
 */
export async function fetchCatalogPages(
  fetchPage: FetchCatalogPage,
  log: (line: string) => void,
  /** `refuse`: a name listed twice is an error (`toolgate pin`: a pin would be ambiguous). */
  options: { duplicates?: "keep-first" | "refuse" } = {},
): Promise<FetchedCatalog> {
  const tools = new Map<string, ListedTool>();
  const pageTexts: (string | undefined)[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_CATALOG_PAGES; page++) {
    const { result, text } = await fetchPage(cursor);
    pageTexts.push(text);
    if (!isJsonObject(result) || !Array.isArray(result.tools)) {
      throw new Error("tools/list result has no tools array");
    }
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") {
        log("ignoring a malformed entry in the server's tools/list (no string name)");
        continue;
      }
      if (tools.has(tool.name)) {
        if (options.duplicates === "refuse") {
          throw new ToolgateError(
            "E_TOOLS_LIST",
            `the server lists tool '${tool.name}' twice; a pin would be ambiguous`,
          );
        }
        log(`the server lists tool '${tool.name}' twice; using the first definition`);
        continue;
      }
      tools.set(tool.name, tool as ListedTool);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return { tools, pageTexts };
    if (typeof next !== "string") throw new Error("tools/list nextCursor is not a string");
    if (cursors.has(next)) throw new Error(`tools/list returned the cursor '${next}' a second time`);
    cursors.add(next);
    cursor = next;
  }
  throw new Error(`tools/list did not end after ${MAX_CATALOG_PAGES} pages`);
}
