import { INVALID_PARAMS } from "../engine/rpc/jsonRpc.js";
import type { RequestScope } from "./clientLink.js";
import { decodeCursor, encodeCursor, type ListPosition } from "./cursor.js";
import { messageOf } from "./forwardRequest.js";
import { exposedName, splitExposedName, splitResourceUri } from "./naming.js";
import { RelayedError } from "./relay.js";
import type { ServerSlot } from "./toolRouter.js";
import {
  rewritePromptResult,
  rewriteReadResult,
  rewriteResourceList,
  rewriteTemplateList,
} from "./uriRewrite.js";

type Json = Record<string, unknown>;

const MAX_EMPTY_PAGES = 1000;

export interface ResourceRouterDeps {
  slots: ReadonlyMap<string, ServerSlot>;
  order: readonly string[];
  forward(slot: ServerSlot, method: string, params: Json, scope: RequestScope): Promise<Json>;
  /** Resource subscriptions per server (the server's own URIs), renewed by the session after a reconnection. */
  subscriptions: Map<string, Set<string>>;
  /** Whether another session sharing the server still subscribes to `uri` (then unsubscribing stays here). */
  stillSubscribed(slot: ServerSlot, uri: string): boolean;
  log(line: string): void;
}

/**
 * Resources, resource templates, prompts and completion across the session's servers: lists are one list of
 * every server's pages in mcp.json order, and each name or URI carries its server (`<server>__<name>`,
 * rewritten URIs), so a request reaches exactly the server it names.
 */
export class ResourceRouter {
  constructor(private readonly deps: ResourceRouterDeps) {}

  private slotOf(server: string): ServerSlot | undefined {
    return this.deps.slots.get(server);
  }

  /**
   * One page of an aggregated list: one page of one server, servers in mcp.json order; the cursor names the
   * server and its own cursor. Servers that are down or lack the capability are skipped (and logged).
   */
  async list(
    method: "resources/list" | "resources/templates/list" | "prompts/list",
    field: "resources" | "resourceTemplates" | "prompts",
    params: Json,
    scope: RequestScope,
  ): Promise<Json> {
    let position: ListPosition | null;
    if (params.cursor === undefined) {
      position = this.deps.order.length === 0 ? null : { server: this.deps.order[0]!, cursor: null };
    } else {
      position = typeof params.cursor === "string" ? decodeCursor(params.cursor, this.deps.order) : null;
      if (position === null) throw new RelayedError(INVALID_PARAMS, "Invalid cursor");
    }
    const capability = method === "prompts/list" ? "prompts" : "resources";
    for (let page = 0; position !== null && page < MAX_EMPTY_PAGES; page++) {
      const index = this.deps.order.indexOf(position.server);
      const slot = this.deps.slots.get(position.server)!;
      const following: ListPosition | null =
        index + 1 < this.deps.order.length ? { server: this.deps.order[index + 1]!, cursor: null } : null;
      let items: unknown[] = [];
      let next = following;
      try {
        const upstream = await slot.link.ready();
        if (upstream.capabilities[capability] !== undefined) {
          const result = await this.deps.forward(
            slot,
            method,
            position.cursor === null ? {} : { cursor: position.cursor },
            scope,
          );
          const listed = Array.isArray(result[field]) ? (result[field] as unknown[]) : [];
          items =
            field === "resources"
              ? rewriteResourceList(listed, slot.name)
              : field === "resourceTemplates"
                ? rewriteTemplateList(listed, slot.name)
                : listed.map((p) =>
                    typeof p === "object" && p !== null && typeof (p as Json).name === "string"
                      ? { ...(p as Json), name: exposedName(slot.name, (p as Json).name as string) }
                      : p,
                  );
          if (typeof result.nextCursor === "string") next = { server: slot.name, cursor: result.nextCursor };
        }
      } catch (error) {
        if (scope.signal.aborted) throw error;
        this.deps.log(`${method}: skipped MCP server '${slot.name}': ${messageOf(error)}`);
      }
      if (items.length > 0 || next === null) {
        return next === null ? { [field]: items } : { [field]: items, nextCursor: encodeCursor(next) };
      }
      position = next;
    }
    return { [field]: [] };
  }

  async resource(method: string, params: Json, scope: RequestScope): Promise<Json> {
    const uri = params.uri;
    const split = typeof uri === "string" ? splitResourceUri(uri) : null;
    const slot = split === null ? undefined : this.slotOf(split.server);
    if (split === null || slot === undefined) {
      throw new RelayedError(INVALID_PARAMS, `Resource ${String(uri)} not found`);
    }
    if (method === "resources/unsubscribe" && this.deps.stillSubscribed(slot, split.uri)) {
      this.deps.subscriptions.get(slot.name)?.delete(split.uri);
      return {};
    }
    const result = await this.deps.forward(slot, method, { ...params, uri: split.uri }, scope);
    if (method === "resources/subscribe" || method === "resources/unsubscribe") {
      const set = this.deps.subscriptions.get(slot.name) ?? new Set<string>();
      if (method === "resources/subscribe") set.add(split.uri);
      else set.delete(split.uri);
      this.deps.subscriptions.set(slot.name, set);
      return result;
    }
    return rewriteReadResult(result, slot.name);
  }

  async prompt(params: Json, scope: RequestScope): Promise<Json> {
    const name = params.name;
    const split = typeof name === "string" ? splitExposedName(name) : null;
    const slot = split === null ? undefined : this.slotOf(split.server);
    if (split === null || slot === undefined) {
      throw new RelayedError(INVALID_PARAMS, `Prompt ${String(name)} not found`);
    }
    const result = await this.deps.forward(slot, "prompts/get", { ...params, name: split.name }, scope);
    return rewritePromptResult(result, slot.name);
  }

  async complete(params: Json, scope: RequestScope): Promise<Json> {
    const ref = params.ref as Json | undefined;
    let routed: { slot: ServerSlot; ref: Json } | null = null;
    if (ref !== undefined && ref !== null && typeof ref === "object") {
      if (ref.type === "ref/prompt" && typeof ref.name === "string") {
        const split = splitExposedName(ref.name);
        const slot = split === null ? undefined : this.slotOf(split.server);
        if (split !== null && slot !== undefined) routed = { slot, ref: { ...ref, name: split.name } };
      } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
        const split = splitResourceUri(ref.uri);
        const slot = split === null ? undefined : this.slotOf(split.server);
        if (split !== null && slot !== undefined) routed = { slot, ref: { ...ref, uri: split.uri } };
      }
    }
    if (routed === null) {
      throw new RelayedError(INVALID_PARAMS, `Invalid completion reference: ${JSON.stringify(ref)}`);
    }
    const upstream = await routed.slot.link.ready();
    if (upstream.capabilities.completions === undefined) {
      return { completion: { values: [], hasMore: false } };
    }
    return this.deps.forward(routed.slot, "completion/complete", { ...params, ref: routed.ref }, scope);
  }
}
