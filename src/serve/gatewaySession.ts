import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  ResultSchema,
  SetLevelRequestSchema,
  type ClientCapabilities,
  type JSONRPCRequest,
  type LoggingLevel,
  type Notification,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuditSink } from "../audit/sink.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import type { ApprovalClaims } from "../session/approvalClaims.js";
import { readApprovalAnswer, type ApprovalOutcome } from "../session/approvalQuestion.js";
import { clientElicitsForms } from "../session/clientCapabilities.js";
import { ToolSession } from "../session/toolSession.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import { localRealpath } from "../upstream/localRealpath.js";
import type { Upstream } from "../upstream/upstream.js";
import { decodeCursor, encodeCursor, type ListPosition } from "./cursor.js";
import { exposedName, exposedResourceUri, splitExposedName, splitResourceUri } from "./naming.js";
import { isTimeout, relayed, RelayedError } from "./relay.js";
import type { SessionContext } from "./sessionContext.js";
import type { ServeMode } from "./serveMode.js";
import { ToolRouter, type ServerSlot } from "./toolRouter.js";
import { forwardRequest, messageOf } from "./forwardRequest.js";
import type { ServerView } from "../session/serverView.js";
import {
  UpstreamLink,
  UpstreamUnavailable,
  type Backoff,
  type ConnectUpstream,
} from "../upstream/upstreamLink.js";
import { SecretScrubber } from "../upstream/serverSecrets.js";
import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import {
  rewritePromptResult,
  rewriteReadResult,
  rewriteResourceList,
  rewriteTemplateList,
} from "./uriRewrite.js";

export interface SessionOptions {
  mode: ServeMode;
  context: SessionContext;
  /** The MCP session id (HTTP) or a random label (stdio): recorded in every audit event. */
  sessionId: string;
  audit: AuditSink | null;
  connect: ConnectUpstream;
  /** Relative `cwd` of stdio servers is resolved against this (the configuration directory). */
  baseDir?: string;
  /** Bound on connecting to a server and on each request toolgate makes on its own (catalog pages). */
  upstreamTimeoutMs: number;
  /** Bound on a forwarded request (reset by progress); the client's cancellation ends it sooner. */
  requestTimeoutMs: number;
  backoff: Backoff;
  /** How long a call under `approval_required` waits for the person's answer (default 120 s). */
  approvalTimeoutMs?: number;
  /** Decide and record, but forward everything (the audit log says `would-deny` / `would-hide`). */
  dryRun?: boolean;
  /** The longest line accepted from a stdio server (`--max-frame-bytes`). */
  maxFrameBytes?: number;
  /** The keys approval artifacts must be signed with and the process's store of spent ids. */
  approvals?: { keys: ApprovalKeyring; claims: ApprovalClaims };
  /** One readable line per decision on stderr. */
  verbose?: boolean;
  log: (line: string) => void;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Json = Record<string, unknown>;

/** What an upstream server may ask the client, forwarded to this session's client and answered back. */
const SERVER_TO_CLIENT_REQUESTS = new Set(["sampling/createMessage", "elicitation/create", "roots/list"]);
const MAX_EMPTY_PAGES = 1000;

export const SERVE_SERVER_INFO = { name: "toolgate", version: "0.1.0" };

/**
 * One client session of `toolgate serve`: an SDK server facing the client and, per enabled server, an
 * {@link UpstreamLink} facing that server. Tools go through the {@link ToolRouter} (one decision for lists,
 * searches, descriptions and calls); resources, templates, prompts, completion and logging are routed by
 * name or URI; what servers send the client (notifications, sampling, elicitation, roots) reaches this
 * session's client only, because each session has its own upstream connections.
 */
export class GatewaySession {
  readonly server: Server;
  private readonly slots = new Map<string, ServerSlot>();
  private readonly order: string[];
  private readonly session: ToolSession;
  private readonly tools: ToolRouter;
  /** Client requests waiting on each server, oldest first: where a server's own messages are related to. */
  private readonly inFlight = new Map<string, RequestId[]>();
  private logLevel: LoggingLevel | null = null;
  /** Resource subscriptions per server (the server's own URIs), renewed after a reconnection. */
  private readonly subscriptions = new Map<string, Set<string>>();
  private closed = false;
  private readonly approvalTimeoutMs: number;
  onclose: (() => void) | undefined;

  constructor(private readonly options: SessionOptions) {
    const { context } = options;
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.server = new Server(SERVE_SERVER_INFO, {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
    });
    this.session = new ToolSession({
      identity: { session: options.sessionId, client: context.client },
      audit: options.audit,
      limits: context.policy,
      dryRun: options.dryRun === true,
      verbose: options.verbose === true,
      approvalTimeoutMs: this.approvalTimeoutMs,
      log: options.log,
      servers: context.servers.length,
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    });
    this.order = context.servers.map((s) => s.name);
    for (const config of context.servers) {
      const name = config.name;
      const view: ServerView = { gate: context.gates.get(name)!, name, serverId: () => name };
      // A stdio server shares toolgate's filesystem, so `realpath: true` scopes resolve links as it would.
      if (config.transport === "stdio") {
        const base = options.baseDir ?? process.cwd();
        view.realpath = localRealpath(config.cwd === null ? process.cwd() : resolve(base, config.cwd));
      }
      const link = new UpstreamLink({
        server: config,
        connect: options.connect,
        capabilities: () => this.mirroredCapabilities(),
        ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
        timeoutMs: options.upstreamTimeoutMs,
        ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
        backoff: options.backoff,
        hooks: {
          setup: (client) => this.setupUpstreamClient(name, client),
          onUp: (upstream, reconnected) => this.upstreamUp(name, upstream, reconnected),
          onDown: () => {},
          onCatalog: (snapshot) => this.session.catalogFetched(view, snapshot),
          log: options.log,
        },
      });
      this.slots.set(name, { name, config, link, view, secrets: new SecretScrubber([config]) });
    }
    this.tools = new ToolRouter({
      mode: options.mode,
      slots: this.slots,
      order: this.order,
      session: this.session,
      forward: (slot, method, params, extra) => this.forward(slot, method, params, extra as Extra),
      cannotAsk: () =>
        clientElicitsForms({ capabilities: this.server.getClientCapabilities() ?? {} })
          ? null
          : "the client did not declare form-mode elicitation in initialize",
      askApproval: (question, extra) => this.askApproval(question, extra as Extra),
      log: options.log,
    });

    this.server.fallbackRequestHandler = (request, extra) =>
      this.handle(request, extra) as Promise<ServerResult>;
    this.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.countRequest(request.method);
      await this.setLogLevel(request.params.level);
      return {};
    });
    this.server.fallbackNotificationHandler = async (notification) => this.fromClient(notification);
    this.server.onclose = () => void this.shutdown();
  }

  get mode(): ServeMode {
    return this.options.mode;
  }

  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  /** Ends the session: its upstream connections (and the servers it started) are closed. */
  async close(): Promise<void> {
    await this.server.close().catch(() => {});
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => s.link.close()));
    this.onclose?.();
  }

  // ---- client → toolgate -------------------------------------------------------------------------------

  private async handle(request: JSONRPCRequest, extra: Extra): Promise<Json> {
    try {
      return await this.route(request, extra);
    } catch (error) {
      // A server that is down answers every request at once with why, as a JSON-RPC error.
      if (error instanceof UpstreamUnavailable)
        throw new RelayedError(ErrorCode.InternalError, error.message);
      throw error;
    }
  }

  private async route(request: JSONRPCRequest, extra: Extra): Promise<Json> {
    const params = (request.params ?? {}) as Json;
    if (request.method === "tools/call") return this.tools.call(request.id, params, extra);
    this.countRequest(request.method, request.id);
    switch (request.method) {
      case "tools/list":
        return this.tools.list(request.id);
      case "resources/list":
        return this.aggregatedList("resources/list", "resources", params, extra);
      case "resources/templates/list":
        return this.aggregatedList("resources/templates/list", "resourceTemplates", params, extra);
      case "prompts/list":
        return this.aggregatedList("prompts/list", "prompts", params, extra);
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.resourceRequest(request.method, params, extra);
      case "prompts/get":
        return this.getPrompt(params, extra);
      case "completion/complete":
        return this.complete(params, extra);
      default:
        throw new RelayedError(ErrorCode.MethodNotFound, "Method not found");
    }
  }

  /** Counts a non-call request against `max_requests_total` and refuses it when the limit is reached. */
  private countRequest(method: string, requestId: RequestId = "(setLevel)"): void {
    const refused = this.session.limitRequest(requestId, method, this.session.countRequest(false));
    if (refused !== null) throw new RelayedError(refused.code, refused.message, refused.data);
  }

  private slotOf(server: string): ServerSlot | undefined {
    return this.slots.get(server);
  }

  /**
   * One page of an aggregated list: one page of one server, servers in mcp.json order; the cursor names the
   * server and its own cursor. Servers that are down or lack the capability are skipped (and logged).
   */
  private async aggregatedList(
    method: "resources/list" | "resources/templates/list" | "prompts/list",
    field: "resources" | "resourceTemplates" | "prompts",
    params: Json,
    extra: Extra,
  ): Promise<Json> {
    let position: ListPosition | null;
    if (params.cursor === undefined) {
      position = this.order.length === 0 ? null : { server: this.order[0]!, cursor: null };
    } else {
      position = typeof params.cursor === "string" ? decodeCursor(params.cursor, this.order) : null;
      if (position === null) throw new RelayedError(ErrorCode.InvalidParams, "Invalid cursor");
    }
    const capability = method === "prompts/list" ? "prompts" : "resources";
    for (let page = 0; position !== null && page < MAX_EMPTY_PAGES; page++) {
      const index = this.order.indexOf(position.server);
      const slot = this.slots.get(position.server)!;
      const following: ListPosition | null =
        index + 1 < this.order.length ? { server: this.order[index + 1]!, cursor: null } : null;
      let items: unknown[] = [];
      let next = following;
      try {
        const upstream = await slot.link.ready();
        if (upstream.capabilities[capability] !== undefined) {
          const result = await this.forward(
            slot,
            method,
            position.cursor === null ? {} : { cursor: position.cursor },
            extra,
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
        if (extra.signal.aborted) throw error;
        this.options.log(`${method}: skipped MCP server '${slot.name}': ${messageOf(error)}`);
      }
      if (items.length > 0 || next === null) {
        return next === null ? { [field]: items } : { [field]: items, nextCursor: encodeCursor(next) };
      }
      position = next;
    }
    return { [field]: [] };
  }

  private async resourceRequest(method: string, params: Json, extra: Extra): Promise<Json> {
    const uri = params.uri;
    const split = typeof uri === "string" ? splitResourceUri(uri) : null;
    const slot = split === null ? undefined : this.slotOf(split.server);
    if (split === null || slot === undefined) {
      throw new RelayedError(ErrorCode.InvalidParams, `Resource ${String(uri)} not found`);
    }
    const result = await this.forward(slot, method, { ...params, uri: split.uri }, extra);
    if (method === "resources/subscribe" || method === "resources/unsubscribe") {
      const set = this.subscriptions.get(slot.name) ?? new Set<string>();
      if (method === "resources/subscribe") set.add(split.uri);
      else set.delete(split.uri);
      this.subscriptions.set(slot.name, set);
      return result;
    }
    return rewriteReadResult(result, slot.name);
  }

  private async getPrompt(params: Json, extra: Extra): Promise<Json> {
    const name = params.name;
    const split = typeof name === "string" ? splitExposedName(name) : null;
    const slot = split === null ? undefined : this.slotOf(split.server);
    if (split === null || slot === undefined) {
      throw new RelayedError(ErrorCode.InvalidParams, `Prompt ${String(name)} not found`);
    }
    const result = await this.forward(slot, "prompts/get", { ...params, name: split.name }, extra);
    return rewritePromptResult(result, slot.name);
  }

  private async complete(params: Json, extra: Extra): Promise<Json> {
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
      throw new RelayedError(ErrorCode.InvalidParams, `Invalid completion reference: ${JSON.stringify(ref)}`);
    }
    const upstream = await routed.slot.link.ready();
    if (upstream.capabilities.completions === undefined) {
      return { completion: { values: [], hasMore: false } };
    }
    return this.forward(routed.slot, "completion/complete", { ...params, ref: routed.ref }, extra);
  }

  private async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        const upstream = slot.link.current;
        if (upstream === null || upstream.capabilities.logging === undefined) return;
        await upstream.client
          .setLoggingLevel(level)
          .catch((e: unknown) =>
            this.options.log(`logging/setLevel on '${slot.name}' failed: ${messageOf(e)}`),
          );
      }),
    );
  }

  private async fromClient(notification: Notification): Promise<void> {
    if (notification.method !== "notifications/roots/list_changed") return;
    await Promise.all(
      [...this.slots.values()].map((slot) =>
        slot.link.current?.client.sendRootsListChanged().catch(() => {}),
      ),
    );
  }

  /** One request to a server for the client (see forwardRequest), noted as in flight while it runs. */
  private async forward(slot: ServerSlot, method: string, params: Json, extra: Extra): Promise<Json> {
    const waiting = this.inFlight.get(slot.name) ?? [];
    waiting.push(extra.requestId);
    this.inFlight.set(slot.name, waiting);
    try {
      return await forwardRequest(slot, method, params, extra, this.options.requestTimeoutMs);
    } finally {
      const at = waiting.lastIndexOf(extra.requestId);
      if (at >= 0) waiting.splice(at, 1);
    }
  }

  /**
   * An approval question for the person behind this client (form-mode `elicitation/create`), sent on the
   * stream of the call it is about; only an explicit approval comes back as approved.
   */
  private async askApproval(question: JsonObject, extra: Extra): Promise<ApprovalOutcome> {
    try {
      const result = await this.server.request(
        { method: "elicitation/create", params: question } as ServerRequest,
        ResultSchema,
        { signal: extra.signal, relatedRequestId: extra.requestId, timeout: this.approvalTimeoutMs },
      );
      return readApprovalAnswer({ jsonrpc: "2.0", id: 0, result });
    } catch (error) {
      if (extra.signal.aborted) return { approved: false, outcome: "client-cancelled" };
      if (isTimeout(error)) return { approved: false, outcome: "timeout", detail: messageOf(error) };
      return { approved: false, outcome: "error", detail: messageOf(error) };
    }
  }

  // ---- server → client ---------------------------------------------------------------------------------

  /** The client's capabilities a server may use through toolgate (it asks, toolgate asks the client). */
  private mirroredCapabilities(): ClientCapabilities {
    const client = this.server.getClientCapabilities() ?? {};
    const out: ClientCapabilities = {};
    if (client.roots !== undefined) out.roots = client.roots;
    if (client.sampling !== undefined) out.sampling = client.sampling;
    if (client.elicitation !== undefined) out.elicitation = client.elicitation;
    return out;
  }

  /**
   * Over HTTP a message for the client travels on the stream of a request of that client. A server's own
   * request or notification is related to the newest client request waiting on that server, else on any
   * server, else it goes to the client's standalone stream.
   */
  private relatedRequest(server: string): RequestId | undefined {
    const own = this.inFlight.get(server);
    if (own !== undefined && own.length > 0) return own[own.length - 1];
    for (const ids of this.inFlight.values()) if (ids.length > 0) return ids[ids.length - 1];
    return undefined;
  }

  private setupUpstreamClient(server: string, client: Client): void {
    client.fallbackRequestHandler = async (request, extra) => {
      if (!SERVER_TO_CLIENT_REQUESTS.has(request.method)) {
        throw new RelayedError(ErrorCode.MethodNotFound, "Method not found");
      }
      const related = this.relatedRequest(server);
      try {
        return (await this.server.request(
          { method: request.method, params: request.params } as ServerRequest,
          ResultSchema,
          {
            signal: extra.signal,
            timeout: this.options.requestTimeoutMs,
            ...(related === undefined ? {} : { relatedRequestId: related }),
          },
        )) as never;
      } catch (error) {
        throw relayed(error);
      }
    };
    client.fallbackNotificationHandler = async (notification) => this.fromServer(server, notification);
  }

  private async fromServer(server: string, notification: Notification): Promise<void> {
    if (this.closed) return;
    if (nestedDeeperThan(notification, MAX_FRAME_DEPTH)) {
      this.options.log(
        `dropped notification ${notification.method} from '${server}': nested deeper than ${MAX_FRAME_DEPTH} levels`,
      );
      return;
    }
    const params = (notification.params ?? {}) as Json;
    const related = this.relatedRequest(server);
    const options = related === undefined ? undefined : { relatedRequestId: related };
    switch (notification.method) {
      case "notifications/tools/list_changed":
        await this.slots.get(server)?.link.toolsChanged();
        if (this.options.mode === "direct") await this.notifyClient({ method: notification.method });
        return;
      case "notifications/resources/list_changed":
      case "notifications/prompts/list_changed":
        await this.notifyClient({ method: notification.method });
        return;
      case "notifications/resources/updated":
        if (typeof params.uri !== "string") return;
        await this.notifyClient(
          { method: notification.method, params: { ...params, uri: exposedResourceUri(server, params.uri) } },
          options,
        );
        return;
      case "notifications/message": {
        const logger = typeof params.logger === "string" ? `${server}/${params.logger}` : server;
        const secrets = this.slots.get(server)?.secrets;
        const shown = { ...params, logger };
        await this.notifyClient(
          { method: notification.method, params: secrets === undefined ? shown : secrets.json(shown) },
          options,
        );
        return;
      }
      case "notifications/elicitation/complete":
        await this.notifyClient({ method: notification.method, params }, options);
        return;
      default:
        this.options.log(
          `dropped notification ${notification.method} from '${server}' (not forwarded by serve)`,
        );
    }
  }

  private async notifyClient(
    notification: { method: string; params?: Json },
    options?: { relatedRequestId: RequestId },
  ): Promise<void> {
    if (this.closed) return;
    await this.server
      .notification(notification as ServerNotification, options)
      .catch((e: unknown) =>
        this.options.log(`could not send ${notification.method} to the client: ${messageOf(e)}`),
      );
  }

  /** After each connection: the session's logging level and subscriptions apply to the new connection too. */
  private upstreamUp(server: string, upstream: Upstream, reconnected: boolean): void {
    if (this.logLevel !== null && upstream.capabilities.logging !== undefined) {
      void upstream.client.setLoggingLevel(this.logLevel).catch(() => {});
    }
    if (!reconnected) return;
    for (const uri of this.subscriptions.get(server) ?? []) {
      void upstream.client.subscribeResource({ uri }).catch(() => {});
    }
    this.options.log(`MCP server '${server}' is connected again`);
    // Its catalog may have changed while it was away.
    if (this.options.mode === "direct")
      void this.notifyClient({ method: "notifications/tools/list_changed" });
  }
}
