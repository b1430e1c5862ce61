import type { IncomingHttpHeaders } from "node:http";
import { EraPin } from "../engine/protocol/eraPin.js";
import { LEGACY_VERSIONS, META, MODERN_VERSIONS, type Envelope, type Era } from "../engine/protocol/eras.js";
import { shapeResult, type ServerIdentity } from "../engine/protocol/resultShape.js";
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import type { MessageExtra, MessageTransport } from "../transports/messageTransport.js";
import { RelayedError, REQUEST_TIMEOUT } from "./relay.js";

/** One client request as the handler sees it: its era, what the client can do, and its way back. */
export interface RequestScope {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly era: Era;
  /** Modern: the request's own envelope. Legacy: `null` (the capabilities are initialize's). */
  readonly envelope: Envelope | null;
  /** What the client declared it can do, for this request. */
  readonly clientCapabilities: JsonObject;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** HTTP: the request's headers. */
  readonly headers: IncomingHttpHeaders | undefined;
  /** A notification belonging to this request (progress, a log message), sent on its stream. */
  notify(method: string, params?: JsonObject): void;
  /** Legacy only: a request to the client belonging to this one (elicitation, sampling, roots). */
  readonly ask: ((method: string, params: JsonObject, timeoutMs: number) => Promise<JsonObject>) | null;
}

/** What answers the client's requests (serve's GatewaySession). */
export interface ClientHandler {
  readonly identity: ServerIdentity;
  capabilities(era: Era): JsonObject;
  instructions(): string | undefined;
  /** The result of one request; throws RelayedError for a JSON-RPC error. */
  request(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject>;
  notification(method: string, params: JsonObject, link: ClientLink): void;
  /** A request refused for its protocol form before anything was decided (for the audit log). */
  refused(method: string, id: JsonRpcId | null, error: JsonRpcErrorObject): void;
  linkClosed(link: ClientLink): void;
}

/** Methods the modern era removed: a modern request for one is a method that does not exist. */
const REMOVED_IN_MODERN = new Set([
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);
/** The envelope's keys: read into the scope, not passed on to servers as part of the request's `_meta`. */
const ENVELOPE_KEYS = [META.protocolVersion, META.clientCapabilities, META.clientInfo, META.logLevel];

interface Outbound {
  resolve(result: JsonObject): void;
  reject(error: Error): void;
}

/**
 * The protocol with one client over one {@link MessageTransport}, in either era. It pins the era of the
 * connection by its first request (`initialize`: legacy; a request with the modern envelope: modern), and
 * refuses the other era's requests after that with a clear error; answers `initialize`, `ping` and
 * `server/discover` itself; checks every modern request's envelope; shapes every result for its era; turns
 * `notifications/cancelled` into an aborted signal; and carries requests to the client (legacy) and their
 * answers. Everything else is the handler's. No schema of the SDK in between: the transport has already
 * checked each frame strictly, and the handler reads what it uses.
 */
export class ClientLink {
  private readonly pin: EraPin;
  private legacyCapabilities: JsonObject = {};
  private readonly inbound = new Map<JsonRpcId, AbortController>();
  private readonly outbound = new Map<JsonRpcId, Outbound>();
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly transport: MessageTransport,
    private readonly handler: ClientHandler,
    options: { era?: Era } = {},
  ) {
    this.pin = new EraPin(options.era ?? null);
  }

  async start(): Promise<void> {
    this.transport.onmessage = (message, extra) => this.receive(message, extra);
    this.transport.onclose = () => this.ended();
    await this.transport.start();
  }

  /** The era this connection speaks, once its first request said. */
  get protocolEra(): Era | null {
    return this.pin.era;
  }

  /** What the client declared in `initialize` (legacy). */
  get capabilities(): JsonObject {
    return this.legacyCapabilities;
  }

  /** A notification not tied to a request (legacy; a modern client gets these on its listen stream). */
  notify(method: string, params?: JsonObject, related?: JsonRpcId): void {
    if (this.closed) return;
    const message = { jsonrpc: "2.0" as const, method, ...(params === undefined ? {} : { params }) };
    void this.transport
      .send(message, related === undefined ? {} : { relatedRequestId: related })
      .catch(() => {});
  }

  /** A request to the client (legacy only), answered with its result; rejects on error, abort or timeout. */
  request(
    method: string,
    params: JsonObject,
    options: { related?: JsonRpcId; signal?: AbortSignal; timeoutMs: number },
  ): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new Error("the client connection is closed"));
    const id = `toolgate-${this.nextId++}`;
    return new Promise<JsonObject>((resolve, reject) => {
      const finish = (): void => {
        this.outbound.delete(id);
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      const cancel = (reason: string): void => {
        finish();
        this.notify("notifications/cancelled", { requestId: id, reason });
      };
      const timer = setTimeout(() => {
        cancel("timed out");
        reject(new RelayedError(REQUEST_TIMEOUT, "Request timed out", { timeout: options.timeoutMs }));
      }, options.timeoutMs);
      const onAbort = (): void => {
        cancel("the request it served was cancelled");
        reject(new RelayedError(-32800, "Request cancelled"));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.outbound.set(id, {
        resolve: (result) => {
          finish();
          resolve(result);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      const message = { jsonrpc: "2.0" as const, id, method, params };
      void this.transport
        .send(message, options.related === undefined ? {} : { relatedRequestId: options.related })
        .catch((error: unknown) => this.outbound.get(id)?.reject(asError(error)));
    });
  }

  async close(): Promise<void> {
    await this.transport.close().catch(() => {});
    this.ended();
  }

  // ---- inbound ------------------------------------------------------------------------------------------

  private receive(message: JsonRpcMessage, extra?: MessageExtra): void {
    if (typeof message.method === "string") {
      const params = isJsonObject(message.params) ? message.params : {};
      if (Object.hasOwn(message, "id"))
        void this.onRequest(message.id as JsonRpcId, message.method, params, extra);
      else this.onNotification(message.method, params);
      return;
    }
    this.onResponse(message as JsonRpcResponse);
  }

  private async onRequest(
    id: JsonRpcId,
    method: string,
    params: JsonObject,
    extra?: MessageExtra,
  ): Promise<void> {
    if (this.inbound.has(id)) {
      return this.refuse(id, method, {
        code: INVALID_REQUEST,
        message: "Invalid Request: a request with this id is still in progress",
      });
    }
    const step = this.pin.read(method, params);
    if (!step.ok) return this.refuse(id, method, step.error);
    if (method === "initialize") return this.initialize(id, params);
    const { era, envelope } = step;
    if (era === "legacy" && method === "ping") return this.answer(id, method, era, {});
    if (era === "modern" && method === "server/discover")
      return this.answer(id, method, era, this.discovery());
    if (era === "modern" && REMOVED_IN_MODERN.has(method)) {
      return this.reply(id, { code: -32601, message: "Method not found" });
    }

    const controller = new AbortController();
    this.inbound.set(id, controller);
    const scope: RequestScope = {
      id,
      method,
      era,
      envelope,
      clientCapabilities: envelope?.capabilities ?? this.legacyCapabilities,
      signal: controller.signal,
      headers: extra?.requestInfo?.headers,
      notify: (m, p) => this.notify(m, p, id),
      ask:
        era === "legacy"
          ? (m, p, timeoutMs) => this.request(m, p, { related: id, signal: controller.signal, timeoutMs })
          : null,
    };
    try {
      const result = await this.handler.request(
        method,
        envelope === null ? params : withoutEnvelope(params),
        scope,
      );
      if (!controller.signal.aborted) this.answer(id, method, era, result);
    } catch (error) {
      // A request the client cancelled gets no answer (MCP cancellation).
      if (!controller.signal.aborted) this.reply(id, errorObject(error));
    } finally {
      this.inbound.delete(id);
    }
  }

  /** The legacy handshake: the client's version when toolgate speaks it, else the newest legacy one. */
  private initialize(id: JsonRpcId, params: JsonObject): void {
    const requested = params.protocolVersion;
    this.legacyCapabilities = isJsonObject(params.capabilities) ? params.capabilities : {};
    const version =
      typeof requested === "string" && LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0]!;
    const instructions = this.handler.instructions();
    this.answer(id, "initialize", "legacy", {
      protocolVersion: version,
      capabilities: this.handler.capabilities("legacy"),
      serverInfo: this.handler.identity,
      ...(instructions === undefined ? {} : { instructions }),
    });
  }

  private discovery(): JsonObject {
    const instructions = this.handler.instructions();
    return {
      // Both eras: a client that cannot speak the modern one may still open a legacy session.
      supportedVersions: [...MODERN_VERSIONS, ...LEGACY_VERSIONS],
      capabilities: this.handler.capabilities("modern"),
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  private onNotification(method: string, params: JsonObject): void {
    if (method === "notifications/cancelled") {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") this.inbound.get(id)?.abort();
      return;
    }
    if (method === "notifications/initialized") return;
    this.handler.notification(method, params, this);
  }

  private onResponse(response: JsonRpcResponse): void {
    if (response.id === null) return;
    const pending = this.outbound.get(response.id);
    if (pending === undefined) return;
    if (response.error !== undefined) {
      pending.reject(new RelayedError(response.error.code, response.error.message, response.error.data));
    } else {
      pending.resolve(isJsonObject(response.result) ? response.result : {});
    }
  }

  private answer(id: JsonRpcId, method: string, era: Era, result: JsonObject): void {
    this.send({ jsonrpc: "2.0", id, result: shapeResult(era, method, result, this.handler.identity) });
  }

  /** A refusal for the request's protocol form: answered, and recorded by the handler. */
  private refuse(id: JsonRpcId, method: string, error: JsonRpcErrorObject): void {
    this.handler.refused(method, id, error);
    this.reply(id, error);
  }

  private reply(id: JsonRpcId, error: JsonRpcErrorObject): void {
    this.send({ jsonrpc: "2.0", id, error });
  }

  private send(message: JsonRpcMessage): void {
    if (this.closed) return;
    void this.transport.send(message).catch(() => {});
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.inbound.values()) controller.abort();
    this.inbound.clear();
    for (const pending of [...this.outbound.values()])
      pending.reject(new Error("the client connection closed"));
    this.handler.linkClosed(this);
  }
}

function withoutEnvelope(params: JsonObject): JsonObject {
  const meta = { ...(params._meta as JsonObject) };
  for (const key of ENVELOPE_KEYS) delete meta[key];
  const { _meta: _, ...rest } = params;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

function errorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof RelayedError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  return { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
