import {
  errorResponse,
  isJsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import type { ItemKind } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { AuditSink } from "../audit/sink.js";
import { ITEM_LISTS, ITEM_NOT_RECORDED, ItemGuard, type ItemListMethod } from "../session/itemGuard.js";
import { itemProbe, unprobe } from "../session/itemProbe.js";

type Pending = { list: ItemListMethod } | { probe: string; name: string };

/**
 * wrap's part of the policy's opt-in `resources:` / `prompts:` sections: a client request about a resource or
 * prompt goes to the server as it came, or, for a hidden one, under a probe name (the server answers it as
 * an unknown one, and the hidden name is put back in that answer); list answers are filtered. Inert without
 * the sections: every request passes untouched and nothing is remembered.
 */
export class ItemRequests {
  private readonly pending = new Map<JsonRpcId, Pending>();

  constructor(
    private readonly gate: ToolGate,
    private readonly guard: ItemGuard,
    private readonly toServer: (message: JsonRpcMessage) => void,
    /** wrap's own way to the client (it ends the request's time in flight). */
    private readonly toClient: (message: JsonRpcMessage) => void,
  ) {}

  /** For wrap's one server and session: its gate, its audit log (events under its label), its flags. */
  static forWrap(
    options: {
      gate: ToolGate;
      audit: AuditSink | null;
      session: string;
      dryRun?: boolean;
      verbose?: boolean;
      log: (line: string) => void;
    },
    peers: { toServer(message: JsonRpcMessage): void },
    toClient: (message: JsonRpcMessage) => void,
  ): ItemRequests {
    const guard = ItemGuard.of(options.audit, { session: options.session }, options);
    return new ItemRequests(options.gate, guard, (message) => peers.toServer(message), toClient);
  }

  /** Sends a client request on to the server: as it came, under a probe name, or not at all (refused). */
  send(request: JsonRpcRequest): void {
    const outgoing = this.outgoing(request, this.toClient);
    if (outgoing !== null) this.toServer(outgoing);
  }

  /** The request to send the server in place of `request`; `null` when it was refused (already answered). */
  private outgoing(
    request: JsonRpcRequest,
    refuse: (answer: JsonRpcResponse) => void,
  ): JsonRpcRequest | null {
    if (this.gate.itemAccess === undefined) return request;
    const method = request.method;
    if (Object.hasOwn(ITEM_LISTS, method)) {
      const { kind } = ITEM_LISTS[method as ItemListMethod];
      if (this.gate.itemAccess(kind, "") !== null)
        this.pending.set(request.id, { list: method as ItemListMethod });
      return request;
    }
    const target = itemTarget(request);
    if (target === null) return request;
    const where = { requestId: request.id, policyDigest: this.gate.policyDigest, server: null };
    const admission = this.guard.admit(this.gate, target.kind, method, target.name, where);
    if (admission === "pass") return request;
    if (admission === "unrecorded") {
      refuse(errorResponse(request.id, ITEM_NOT_RECORDED.code, ITEM_NOT_RECORDED.message));
      return null;
    }
    const probe = itemProbe(target.kind, target.name);
    this.pending.set(request.id, { probe, name: target.name });
    return { ...request, params: target.with(probe) };
  }

  /**
   * Any answer on its way to the client (the server's, or toolgate's own refusal): a list filtered, a probe's
   * answer with the hidden name put back; every other answer as it is.
   */
  answer(response: JsonRpcResponse): JsonRpcResponse {
    if (this.pending.size === 0 || response.id === null) return response;
    const pending = this.pending.get(response.id);
    if (pending === undefined) return response;
    this.pending.delete(response.id);
    if ("probe" in pending) return unprobe(response, pending.probe, pending.name);
    if (response.error !== undefined || !isJsonObject(response.result)) return response;
    const { field } = ITEM_LISTS[pending.list];
    const items = response.result[field];
    if (!Array.isArray(items)) return response;
    const where = { requestId: response.id, policyDigest: this.gate.policyDigest, server: null };
    const shown = this.guard.filterList(this.gate, pending.list, items, where);
    if (shown === null) return errorResponse(response.id, ITEM_NOT_RECORDED.code, ITEM_NOT_RECORDED.message);
    return { ...response, result: { ...response.result, [field]: shown } };
  }
}

interface ItemTarget {
  kind: ItemKind;
  name: string;
  /** The request's params with `name` replaced. */
  with(name: string): Record<string, unknown>;
}

/** The resource or prompt a request names: read, subscribe, get, or the reference of a completion. */
function itemTarget(request: JsonRpcRequest): ItemTarget | null {
  const params = request.params ?? {};
  switch (request.method) {
    case "resources/read":
    case "resources/subscribe":
      return typeof params.uri === "string"
        ? { kind: "resource", name: params.uri, with: (uri) => ({ ...params, uri }) }
        : null;
    case "prompts/get":
      return typeof params.name === "string"
        ? { kind: "prompt", name: params.name, with: (name) => ({ ...params, name }) }
        : null;
    case "completion/complete": {
      const ref = params.ref;
      if (!isJsonObject(ref)) return null;
      if (ref.type === "ref/prompt" && typeof ref.name === "string") {
        return { kind: "prompt", name: ref.name, with: (name) => ({ ...params, ref: { ...ref, name } }) };
      }
      if (ref.type === "ref/resource" && typeof ref.uri === "string") {
        return { kind: "resource", name: ref.uri, with: (uri) => ({ ...params, ref: { ...ref, uri } }) };
      }
      return null;
    }
    default:
      return null;
  }
}
