import { LIST_NOT_RECORDED } from "../session/answers.js";
import type { CatalogState } from "../session/toolCatalog.js";
import { metaToolDefinitions } from "./metaTools.js";
import { assertDistinctNames, exposedName } from "./naming.js";
import { RelayedError } from "./relay.js";
import type { Json, RouterDeps, ServerSlot } from "./routerDeps.js";

const MODEL_NAME_MAX = 64;
const MODEL_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * serve's `tools/list`: in meta mode the meta tools of each server; in direct mode each server's tools as
 * the session lets the client see them, under their exposed names (`<server>__<tool>`). A server still
 * starting is left out and announced later; one that went down is listed from its last catalog.
 */
export class ToolListing {
  /** Exposed names already warned about (once per session). */
  private readonly warnedNames = new Set<string>();

  constructor(private readonly deps: RouterDeps) {}

  async list(requestId: string | number): Promise<Json> {
    if (this.deps.mode === "meta") {
      const tools = this.deps.order.flatMap((server) => metaToolDefinitions(server));
      assertDistinctNames(tools.map((t) => ({ exposed: t.name, origin: `meta tool ${t.name}` })));
      return { tools };
    }
    const perServer = await Promise.all(
      this.deps.order.map(async (server) => {
        const slot = this.deps.slots.get(server)!;
        slot.link.relist();
        const state = await this.catalogOrLate(slot);
        if (state === "late") {
          this.deps.listedWithout(server);
          this.deps.log(
            `tools/list: MCP server '${server}' is still starting: left out now, announced with tools/list_changed once it is up`,
          );
          return { slot, catalog: null };
        }
        if (state.ok) return { slot, catalog: state.snapshot };
        // A server that went down keeps its last catalog in the list (its calls answer "unavailable"
        // until it is back); one that never answered is left out.
        const known = slot.link.lastKnownTools;
        this.deps.log(
          `tools/list: MCP server '${server}' ${known === null ? "left out" : "listed from its last catalog"}: ${state.reason}`,
        );
        return { slot, catalog: known };
      }),
    );
    const shown: Json[] = [];
    for (const { slot, catalog } of perServer) {
      if (catalog === null) continue;
      const listed = this.deps.session.filterList({
        requestId,
        server: slot.view,
        tools: [...catalog.tools.values()],
        exactSchemaText: (name) => catalog.exactSchemaText(name),
        // `<server>__` alone names no tool.
        unshowable: (name) => name === "",
      });
      if (!listed.recorded) throw new RelayedError(LIST_NOT_RECORDED.code, LIST_NOT_RECORDED.message);
      this.deps.listed?.(slot.name, listed.shown);
      for (const tool of listed.shown) {
        const exposed = exposedName(slot.name, tool.name);
        this.warnAboutName(exposed);
        shown.push({ ...tool, name: exposed });
      }
    }
    // Injective by construction (see naming.ts); checked anyway so a broken assumption fails closed.
    assertDistinctNames(shown.map((t) => ({ exposed: t.name as string, origin: `tool ${String(t.name)}` })));
    return { tools: shown };
  }

  /**
   * The server's catalog, or "late" when it is still starting after the list's wait (serve answers at once
   * with the servers that are up, and announces the others as they come).
   */
  private async catalogOrLate(slot: ServerSlot): Promise<CatalogState | "late"> {
    const pending = slot.link.catalogState();
    if (!slot.link.starting) return pending;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">(
      (resolve) => (timer = setTimeout(() => resolve("late"), this.deps.listWaitMs)),
    );
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Many model APIs accept tool names of at most 64 characters from `[A-Za-z0-9_-]`; a longer exposed name
   * still works with MCP clients that pass names through, so it is listed, with a warning on stderr.
   */
  private warnAboutName(exposed: string): void {
    if (this.warnedNames.has(exposed)) return;
    if (exposed.length <= MODEL_NAME_MAX && MODEL_NAME.test(exposed)) return;
    this.warnedNames.add(exposed);
    this.deps.log(
      `tool name '${exposed}' is ${exposed.length} characters${MODEL_NAME.test(exposed) ? "" : " and uses characters outside [A-Za-z0-9_-]"}; ` +
        `some model APIs refuse names longer than ${MODEL_NAME_MAX} or with other characters (a shorter server name in mcp.json helps)`,
    );
  }
}
