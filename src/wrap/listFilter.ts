import { extractToolSchemaTexts } from "../engine/pins/exactHash.js";
import {
  errorResponse,
  INTERNAL_ERROR,
  isJsonObject,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import { LIST_NOT_RECORDED } from "../session/answers.js";
import type { ServerView } from "../session/serverView.js";
import type { ToolCatalog } from "../session/toolCatalog.js";
import type { ToolSession } from "../session/toolSession.js";
import type { WrapEra } from "./wrapEra.js";
import { ItemRequests } from "./itemRequests.js";

export interface ListFilterDeps {
  session: ToolSession;
  server: ServerView;
  catalog: ToolCatalog;
  era: WrapEra;
  /** wrap's options: its log, and what the resources:/prompts: sections need (gate, audit log, flags). */
  options: Parameters<typeof ItemRequests.forWrap>[0];
  toServer(message: JsonRpcMessage): void;
  toClient(message: JsonRpcMessage): void;
}

/**
 * The `tools/list` answers the client asked for, every page, filtered by the session core: only the tools it
 * may see (cursors untouched), private to it in the modern era, and a re-fetch of toolgate's own catalog
 * when the server's list shows definitions other than the ones toolgate holds.
 */
export class ListFilter {
  /** The other lists, and requests naming a resource or prompt, under the policy's opt-in sections. */
  readonly items: ItemRequests;

  constructor(private readonly deps: ListFilterDeps) {
    this.items = ItemRequests.forWrap(deps.options, deps, (message) => deps.toClient(message));
  }

  /**
   * A list that shows a tool other than toolgate's catalog has it (the server changed a tool without
   * `list_changed`): calls wait for a fresh catalog from now on, so a tool withheld from this list for drift
   * is refused on call too, not only hidden from the list.
   */
  private noticeChangedDefinitions(tools: readonly unknown[]): void {
    const known = this.deps.catalog.current();
    if (!known.ok) return;
    const changed = tools.some((tool) => {
      if (!isJsonObject(tool) || typeof tool.name !== "string") return false;
      const mine = known.snapshot.tools.get(tool.name);
      return mine === undefined || JSON.stringify(mine) !== JSON.stringify(tool);
    });
    if (!changed) return;
    this.deps.options.log(
      "the server's tools/list differs from the catalog toolgate holds; fetching it again",
    );
    this.deps.catalog.markStale();
    void this.deps.catalog.refresh();
  }

  /** Every `tools/list` answer the client asked for, every page: only visible tools (cursors untouched). */
  filter(response: JsonRpcResponse, text: string | undefined): void {
    if (response.error !== undefined) {
      this.deps.toClient(response);
      return;
    }
    const result = response.result;
    if (!isJsonObject(result) || !Array.isArray(result.tools)) {
      this.deps.options.log(
        "the server's tools/list result has no tools array; answered the client with an error",
      );
      this.deps.toClient(
        errorResponse(
          response.id,
          INTERNAL_ERROR,
          "toolgate: the server's tools/list result is malformed (no tools array)",
        ),
      );
      return;
    }
    let schemaTexts: Map<string, string> | undefined;
    const exactSchemaText = (name: string): string | undefined => {
      if (schemaTexts === undefined) {
        schemaTexts = new Map();
        if (text !== undefined) {
          try {
            schemaTexts = extractToolSchemaTexts(text);
          } catch (error) {
            this.deps.options.log(
              `cannot read exact schema texts from the tools/list answer: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
      }
      return schemaTexts.get(name);
    };
    const listed = this.deps.session.filterList({
      requestId: response.id,
      server: this.deps.server,
      tools: result.tools,
      exactSchemaText,
    });
    this.noticeChangedDefinitions(result.tools);
    if (!listed.recorded) {
      this.deps.toClient({ jsonrpc: "2.0", id: response.id, error: LIST_NOT_RECORDED });
      return;
    }
    this.deps.toClient({
      ...response,
      result: this.deps.era.filteredList({ ...result, tools: listed.shown }),
    });
  }
}
