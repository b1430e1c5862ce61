import { INVALID_PARAMS } from "../engine/rpc/jsonRpc.js";
import type { ItemKind } from "../engine/model/decision.js";
import { ITEM_NOT_RECORDED, type ItemGuard } from "../session/itemGuard.js";
import { itemProbe, unprobe } from "../session/itemProbe.js";
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
  guard: ItemGuard;
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

  private where(scope: RequestScope, slot: ServerSlot) {
    return { requestId: scope.id, policyDigest: slot.view.gate.policyDigest, server: slot.name };
  }

  /**
   * Whether a request about the server's own `name` may reach it. A hidden one is answered exactly as serve
   * answers a resource or prompt it does not have; one that could not be recorded is refused.
   */
  private admitted(
    kind: ItemKind,
    method: string,
    name: string,
    slot: ServerSlot,
    scope: RequestScope,
  ): boolean {
    const shownAs = kind === "prompt" ? exposedName(slot.name, name) : undefined;
    const admission = this.deps.guard.admit(
      slot.view.gate,
      kind,
      method,
      name,
      this.where(scope, slot),
      shownAs,
    );
    if (admission === "unrecorded") throw new RelayedError(ITEM_NOT_RECORDED.code, ITEM_NOT_RECORDED.message);
    return admission === "pass";
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
          const page = Array.isArray(result[field]) ? (result[field] as unknown[]) : [];
          const listed = this.deps.guard.filterList(
            slot.view.gate,
            method,
            page,
            this.where(scope, slot),
            (n) => exposedName(slot.name, n),
          );
          if (listed === null) throw new RelayedError(ITEM_NOT_RECORDED.code, ITEM_NOT_RECORDED.message);
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
    // Unsubscribing passes: it reveals nothing, and a subscription made before a policy change can end.
    if (method !== "resources/unsubscribe" && !this.admitted("resource", method, split.uri, slot, scope)) {
      const probe = itemProbe("resource", split.uri);
      const answer = await this.probed(probe, split.uri, () =>
        this.deps.forward(slot, method, { ...params, uri: probe }, scope),
      );
      return method === "resources/read" ? rewriteReadResult(answer, slot.name) : answer;
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
    const own = this.admitted("prompt", "prompts/get", split.name, slot, scope)
      ? null
      : itemProbe("prompt", split.name);
    const result = await this.probed(own, split.name, () =>
      this.deps.forward(slot, "prompts/get", { ...params, name: own ?? split.name }, scope),
    );
    return rewritePromptResult(result, slot.name);
  }

  async complete(params: Json, scope: RequestScope): Promise<Json> {
    const ref = params.ref as Json | undefined;
    let routed: { slot: ServerSlot; ref: Json; hidden: { probe: string; name: string } | null } | null = null;
    if (ref !== undefined && ref !== null && typeof ref === "object") {
      if (ref.type === "ref/prompt" && typeof ref.name === "string") {
        const split = splitExposedName(ref.name);
        const slot = split === null ? undefined : this.slotOf(split.server);
        if (split !== null && slot !== undefined) {
          const hidden = this.hiddenAs("prompt", split.name, slot, scope);
          routed = { slot, ref: { ...ref, name: hidden?.probe ?? split.name }, hidden };
        }
      } else if (ref.type === "ref/resource" && typeof ref.uri === "string") {
        const split = splitResourceUri(ref.uri);
        const slot = split === null ? undefined : this.slotOf(split.server);
        if (split !== null && slot !== undefined) {
          const hidden = this.hiddenAs("resource", split.uri, slot, scope);
          routed = { slot, ref: { ...ref, uri: hidden?.probe ?? split.uri }, hidden };
        }
      }
    }
    if (routed === null) {
      throw new RelayedError(INVALID_PARAMS, `Invalid completion reference: ${JSON.stringify(ref)}`);
    }
    const upstream = await routed.slot.link.ready();
    if (upstream.capabilities.completions === undefined) {
      return { completion: { values: [], hasMore: false } };
    }
    const { slot, hidden } = routed;
    return this.probed(hidden?.probe ?? null, hidden?.name ?? "", () =>
      this.deps.forward(slot, "completion/complete", { ...params, ref: routed.ref }, scope),
    );
  }

  /** A hidden item's probe (completion decides by the server's own name), or `null` when it passes. */
  private hiddenAs(
    kind: ItemKind,
    name: string,
    slot: ServerSlot,
    scope: RequestScope,
  ): { probe: string; name: string } | null {
    return this.admitted(kind, "completion/complete", name, slot, scope)
      ? null
      : { probe: itemProbe(kind, name), name };
  }

  /**
   * The server's answer to a request sent under a probe name (`probe` non-null), with the hidden name put
   * back, in a result or in the error it relays: the answer the server gives for an item it does not have.
   */
  private async probed(probe: string | null, name: string, send: () => Promise<Json>): Promise<Json> {
    if (probe === null) return send();
    try {
      return unprobe(await send(), probe, name);
    } catch (error) {
      if (!(error instanceof RelayedError)) throw error;
      throw new RelayedError(
        error.code,
        unprobe(error.message, probe, name),
        unprobe(error.data, probe, name),
      );
    }
  }
}
