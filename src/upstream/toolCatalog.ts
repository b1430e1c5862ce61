import type { Client, Tool } from "@modelcontextprotocol/client";
import type { ServerCapabilities } from "@modelcontextprotocol/client";
import { ToolgateError } from "../engine/errors.js";
import { fetchCatalogPages, type CatalogPage } from "../session/catalogPages.js";
import { ANY_RESULT } from "./anyResult.js";
import { reasonOf } from "./connectFailure.js";
import type { ToolsListTexts } from "./rawRecording.js";
import type { SecretScrubber } from "./serverSecrets.js";

/**
 * A connected server's tool catalog: each `tools/list` page as the server sent it (with its raw text when
 * recorded, for `exact_schema_hash` pins), and the whole catalog through the one pagination loop.
 */

/** Every tool the server lists, and the raw text of each `tools/list` page they came from. */
export interface ListedToolCatalog {
  /** In list order across pages; the first definition wins for a repeated name. */
  tools: Tool[];
  /**
   * One entry per page, in order: the answer's JSON text as the server sent it, or `undefined` when it was
   * not recorded (without `recordToolsListText`, or when the text could not be matched to the request).
   */
  pageTexts: (string | undefined)[];
}

/**
 * One `tools/list` page with the text the server sent for it (with `texts`: taken by the id of the request
 * that asked for it, whether or not the request succeeded, so nothing is left behind for an abandoned page).
 */
export async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  timeoutMs: number,
  texts: ToolsListTexts | null,
): Promise<CatalogPage> {
  // Passed through as the server sent it, not checked against the SDK's Tool type (which would refuse a
  // whole page for one tool without an inputSchema): the catalog reads each entry itself.
  const list = () =>
    client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ANY_RESULT, {
      timeout: timeoutMs,
    });
  const { pending, id } = texts === null ? { pending: list(), id: undefined } : texts.capture(list);
  let text: string | undefined;
  let result: unknown;
  try {
    result = await pending;
  } finally {
    if (id !== undefined) text = texts?.take(id);
  }
  return { result, text };
}

/** The full catalog through the one pagination loop (session/catalogPages.ts); a server without `tools` has none. */
export async function listToolCatalog(
  name: string,
  client: Client,
  capabilities: ServerCapabilities,
  timeoutMs: number,
  texts: ToolsListTexts | null,
  secrets: SecretScrubber,
): Promise<ListedToolCatalog> {
  if (capabilities.tools === undefined) return { tools: [], pageTexts: [] };
  try {
    const { tools, pageTexts } = await fetchCatalogPages(
      (cursor) => listToolsPage(client, cursor, timeoutMs, texts),
      () => {},
    );
    return { tools: [...tools.values()] as Tool[], pageTexts };
  } catch (error) {
    throw new ToolgateError(
      "E_UPSTREAM_TOOLS",
      secrets.text(`MCP server '${name}' could not list its tools: ${reasonOf(error)}`),
    );
  }
}
