import { resolve } from "node:path";
import type { AuditSink } from "../audit/sink.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import { LOG_LEVELS, META, type Era } from "../engine/protocol/eras.js";
import type { ServerIdentity } from "../engine/protocol/resultShape.js";
import { INVALID_PARAMS, isJsonObject, type JsonObject } from "../engine/rpc/jsonRpc.js";
import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { MemoryApprovalClaims, type ApprovalClaims } from "../session/approvalClaims.js";
import { RequestStateCodec } from "../engine/protocol/requestState.js";
import { ApprovalRounds } from "../session/approvalRounds.js";
import type { ServerView } from "../session/serverView.js";
import { ToolSession, uncountedReason, type RequestCounter } from "../session/toolSession.js";
import type { MessageTransport } from "../transports/messageTransport.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { SecretScrubber } from "../upstream/serverSecrets.js";
import type { Upstream } from "../upstream/upstream.js";
import type { LinkHooks } from "../upstream/upstreamLink.js";
import {
  UpstreamLink,
  UpstreamUnavailable,
  type Backoff,
  type ConnectUpstream,
} from "../upstream/upstreamLink.js";
import { ClientLink, type ClientHandler, type RequestScope } from "./clientLink.js";

import { forwardRequest, messageOf } from "./forwardRequest.js";
import { exposedResourceUri } from "./naming.js";
import { relayed, RelayedError } from "./relay.js";
import type { SessionContext } from "./sessionContext.js";
import type { ServeMode } from "./serveMode.js";
import { ToolRouter, type ServerSlot } from "./toolRouter.js";
import { shareKey, UpstreamPool, type LinkMember } from "./upstreamPool.js";
import type { ApprovalDesk } from "../session/approvalDesk.js";
import { ApprovalChannel } from "./approvalChannel.js";
import { ResourceRouter } from "./resourceRouter.js";
import { ItemGuard } from "../session/itemGuard.js";
import { localPrincipal, type Principal } from "../engine/model/principal.js";

export interface SessionOptions {
  mode: ServeMode;
  context: SessionContext;
  /** The MCP session id (HTTP) or a random label (stdio): recorded in every audit event. */
  sessionId: string;
  audit: AuditSink | null;
  connect: ConnectUpstream;
  /** Relative `cwd` of stdio servers is resolved against this (the configuration directory). */
  baseDir?: string;
  /** Bound on each request toolgate makes on its own (catalog pages). */
  upstreamTimeoutMs: number;
  /** How long a server may take to start (`--startup-timeout`; its `startup_timeout` wins). Default 60 s. */
  startupTimeoutMs?: number;
  /**
   * How long a `tools/list` waits for servers still starting before it answers without them; each is
   * announced (`tools/list_changed`) once its catalog is in. Default {@link DEFAULT_LIST_WAIT_MS}.
   */
  listWaitMs?: number;
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
  /** Signs the `requestState` of toolgate's approval questions in the modern era (default: a key of its own). */
  requestStates?: RequestStateCodec;
  /**
   * Who this session serves: request states are bound to it, limits count for it, its servers are shared
   * with its other sessions (by default), approvals name it, the audit log records it. Default: a local
   * principal of this session alone.
   */
  principal?: Principal;
  /** Serves a principal's modern-era exchanges: stays open when its connections come and go. */
  persistent?: boolean;
  /** One readable line per decision on stderr. */
  verbose?: boolean;
  /** Where requests are counted against the limits (serve: per principal, in the shared state). */
  counter?: RequestCounter;
  /** Approvals out of band: a client that cannot ask its person waits for the dashboard's answer. */
  desk?: ApprovalDesk;
  /**
   * The process's shared upstream servers: sessions of one principal share a server unless its entry says
   * otherwise. Absent: this session's own servers.
   */
  upstreams?: UpstreamPool;
  log: (line: string) => void;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
/** A tools/list waits this long for servers still starting (fast ones make it), then answers without them. */
export const DEFAULT_LIST_WAIT_MS = 2000;

type Json = Record<string, unknown>;

/** What an upstream server may ask the client, forwarded to this session's client and answered back. */
const SERVER_TO_CLIENT_REQUESTS = new Set(["sampling/createMessage", "elicitation/create", "roots/list"]);

export const SERVE_SERVER_INFO: ServerIdentity = { name: "toolgate", version: "0.1.0" };
const METHOD_NOT_FOUND = -32601;

/**
 * One client session of `toolgate serve`: toolgate's protocol with the client ({@link ClientLink}, either
 * era) and, per enabled server, an {@link UpstreamLink} facing that server. Tools go through the
 * {@link ToolRouter} (one decision for lists, searches, descriptions and calls); resources, templates,
 * prompts, completion and logging are routed by name or URI; what servers send the client (notifications,
 * sampling, elicitation, roots) reaches this session's client only, because each session has its own
 * upstream connections.
 */
export class GatewaySession implements ClientHandler {
  readonly identity = SERVE_SERVER_INFO;
  private readonly slots = new Map<string, ServerSlot>();
  private readonly order: string[];
  private readonly session: ToolSession;
  private readonly tools: ToolRouter;
  private readonly resources: ResourceRouter;
  /** The client's connections: one for stdio and a legacy HTTP session. */
  private readonly links = new Set<ClientLink>();
  /** Client requests waiting on each server, oldest first: where a server's own messages are related to. */
  private readonly inFlight = new Map<string, RequestScope[]>();
  private logLevel: string | null = null;
  /** Resource subscriptions per server (the server's own URIs), renewed after a reconnection. */
  private readonly subscriptions = new Map<string, Set<string>>();
  /** Modern clients' `subscriptions/listen` streams, with what each asked for. */
  private readonly listeners = new Set<{ scope: RequestScope; honored: Set<string> }>();
  private closed = false;
  /** Per server, what this session's client was last shown of its tools (see visibleFingerprint). */
  private readonly shownLists = new Map<string, string>();
  /** Servers a list was answered without (still starting): announced once their catalog is in. */
  private readonly listedWithout = new Set<string>();
  /** Whether the servers were started (at the client's first request, once its capabilities are known). */
  private started = false;
  private readonly approvalTimeoutMs: number;
  /** The servers this session uses, shared or its own (a pool of its own when none is given). */
  private readonly pool: UpstreamPool;
  /** Each server's key in the pool. */
  private readonly shareKeys = new Map<string, string>();
  private readonly asker: ApprovalChannel;
  onclose: (() => void) | undefined;

  /** Who this session serves (see SessionOptions.principal). */
  readonly principal: Principal;

  constructor(private readonly options: SessionOptions) {
    const { context } = options;
    this.principal = options.principal ?? localPrincipal(`session ${options.sessionId}`);
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.pool = options.upstreams ?? new UpstreamPool();
    this.asker = new ApprovalChannel({
      timeoutMs: this.approvalTimeoutMs,
      principal: this.principal,
      session: options.sessionId,
      ...(options.desk === undefined ? {} : { desk: options.desk }),
    });
    const identity = { session: options.sessionId, client: context.client, principal: this.principal.name };
    this.session = new ToolSession({
      identity,
      audit: options.audit,
      limits: context.policy,
      dryRun: options.dryRun === true,
      verbose: options.verbose === true,
      approvalTimeoutMs: this.approvalTimeoutMs,
      log: options.log,
      principal: this.principal,
      servers: context.servers.length,
      approvalWays: { surface: "serve", dashboard: options.desk !== undefined },
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      ...(options.counter === undefined ? {} : { counter: options.counter }),
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
      const make = (hooks: Omit<LinkHooks, "log">): UpstreamLink =>
        new UpstreamLink({
          server: config,
          connect: options.connect,
          capabilities: () => this.mirroredCapabilities(),
          ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
          timeoutMs: options.upstreamTimeoutMs,
          ...(options.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: options.startupTimeoutMs }),
          ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
          backoff: options.backoff,
          hooks: { ...hooks, log: options.log },
        });
      let link: UpstreamLink | null = null;
      const slot = { name, config, view, secrets: new SecretScrubber([config]) } as ServerSlot;
      // Attached on first use, once the client has said what it can do: a server shared by sessions sees
      // one client, so only sessions whose clients can do the same (sampling, elicitation, roots) share it.
      Object.defineProperty(slot, "link", {
        enumerable: true,
        get: (): UpstreamLink => {
          if (link !== null) return link;
          const key = shareKey(config, this.sharingAs(), options.sessionId);
          this.shareKeys.set(name, key);
          link = this.pool.attach(key, name, this.member, make);
          return link;
        },
      });
      this.slots.set(name, slot);
    }
    this.tools = new ToolRouter({
      mode: options.mode,
      slots: this.slots,
      order: this.order,
      session: this.session,
      forward: (slot, method, params, scope) => this.forward(slot, method, params, scope as RequestScope),
      cannotAsk: (scope) => this.asker.cannotAsk(scope as RequestScope),
      askApproval: (question, scope, about) => this.asker.ask(question, scope as RequestScope, about),
      asksOutOfBand: (scope) => this.asker.outOfBand(scope as RequestScope),
      eraOf: (scope) => (scope as RequestScope).era,
      headersOf: (scope) => (scope as RequestScope).headers,
      listed: (server, shown) => this.shownLists.set(server, JSON.stringify(shown)),
      listWaitMs: options.listWaitMs ?? DEFAULT_LIST_WAIT_MS,
      listedWithout: (server) => this.listedWithout.add(server),
      rounds: new ApprovalRounds({
        codec: options.requestStates ?? RequestStateCodec.ephemeral(),
        claims: options.approvals?.claims ?? new MemoryApprovalClaims(),
        principal: this.principal.key,
        ttlMs: this.approvalTimeoutMs,
      }),
      log: options.log,
    });
    this.resources = new ResourceRouter({
      slots: this.slots,
      order: this.order,
      forward: (slot, method, params, scope) => this.forward(slot, method, params, scope),
      subscriptions: this.subscriptions,
      // Another session sharing the server still wants a resource this one unsubscribes from.
      stillSubscribed: (slot, uri) => {
        const key = this.shareKeys.get(slot.name);
        return key !== undefined && this.pool.othersSubscribed(key, this.member, slot.name, uri);
      },
      log: options.log,
      guard: ItemGuard.of(options.audit, identity, options),
    });
  }

  get mode(): ServeMode {
    return this.options.mode;
  }

  /** Serves the client on `transport` (in `era` from the start, when the transport knows it). */
  async connect(transport: MessageTransport, options: { era?: Era } = {}): Promise<void> {
    const link = new ClientLink(transport, this, options);
    this.links.add(link);
    await link.start();
  }

  /** Ends the session: its client connections and its upstream connections (and the servers it started). */
  async close(): Promise<void> {
    await Promise.all([...this.links].map((link) => link.close()));
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.shareKeys.values()].map((key) => this.pool.detach(key, this.member)));
    this.onclose?.();
  }

  // ---- the client's protocol (ClientHandler) -------------------------------------------------------------

  capabilities(era: Era): JsonObject {
    return {
      tools: { listChanged: true },
      resources: era === "legacy" ? { subscribe: true, listChanged: true } : { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    };
  }

  instructions(): string | undefined {
    return undefined;
  }

  refused(method: string, id: string | number | null, error: { message: string }): void {
    this.session.refusedRequest(id, method, error.message);
  }

  linkClosed(link: ClientLink): void {
    this.links.delete(link);
    if (this.links.size === 0 && this.options.persistent !== true) void this.shutdown();
  }

  notification(method: string, _params: JsonObject): void {
    if (method !== "notifications/roots/list_changed") return;
    for (const slot of this.slots.values()) {
      const upstream = slot.link.current;
      if (upstream !== null && upstream.client.getProtocolEra() !== "modern") {
        void upstream.client.sendRootsListChanged().catch(() => {});
      }
    }
  }

  async request(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject> {
    this.startServers();
    try {
      return await this.route(method, params, scope);
    } catch (error) {
      // A server that is down answers every request at once with why, as a JSON-RPC error.
      if (error instanceof UpstreamUnavailable) throw new RelayedError(-32603, error.message);
      throw error;
    }
  }

  private async route(method: string, params: Json, scope: RequestScope): Promise<Json> {
    if (method === "tools/call") return this.tools.call(scope.id, params, scope);
    await this.countRequest(method, scope.id);
    switch (method) {
      case "tools/list":
        return this.tools.list(scope.id);
      case "resources/list":
        return this.resources.list("resources/list", "resources", params, scope);
      case "resources/templates/list":
        return this.resources.list("resources/templates/list", "resourceTemplates", params, scope);
      case "prompts/list":
        return this.resources.list("prompts/list", "prompts", params, scope);
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.resources.resource(method, params, scope);
      case "prompts/get":
        return this.resources.prompt(params, scope);
      case "completion/complete":
        return this.resources.complete(params, scope);
      case "logging/setLevel":
        return this.setLogLevel(params.level);
      case "subscriptions/listen":
        if (scope.era !== "modern") throw new RelayedError(METHOD_NOT_FOUND, "Method not found");
        return this.listen(params, scope);
      default:
        throw new RelayedError(METHOD_NOT_FOUND, "Method not found");
    }
  }

  /**
   * Every server is started at the client's first request (its capabilities known by then), not each at its
   * first use: a slow server is then on its way while the client does other things.
   */
  private startServers(): void {
    if (this.started) return;
    this.started = true;
    for (const slot of this.slots.values()) void slot.link.ready().catch(() => {});
  }

  /** Counts a non-call request against `max_requests_total` and refuses it when the limit is reached. */
  private async countRequest(method: string, requestId: string | number): Promise<void> {
    let counters;
    try {
      counters = await this.session.countRequest(false);
    } catch (error) {
      const refused = this.session.uncountedRequest(requestId, method, uncountedReason(error));
      throw new RelayedError(refused.code, refused.message, refused.data);
    }
    const refused = this.session.limitRequest(requestId, method, counters);
    if (refused !== null) throw new RelayedError(refused.code, refused.message, refused.data);
  }

  /** legacy `logging/setLevel`: the level applies to every server of the session, now and after reconnecting. */
  private async setLogLevel(level: unknown): Promise<Json> {
    if (typeof level !== "string" || !LOG_LEVELS.includes(level)) {
      throw new RelayedError(INVALID_PARAMS, `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
    }
    this.logLevel = level;
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        const upstream = slot.link.current;
        if (upstream === null) return;
        await setUpstreamLevel(upstream, level).catch((e: unknown) =>
          this.options.log(`logging/setLevel on '${slot.name}' failed: ${messageOf(e)}`),
        );
      }),
    );
    return {};
  }

  /** One request to a server for the client (see forwardRequest), noted as in flight while it runs. */
  private async forward(slot: ServerSlot, method: string, params: Json, scope: RequestScope): Promise<Json> {
    const waiting = this.inFlight.get(slot.name) ?? [];
    waiting.push(scope);
    this.inFlight.set(slot.name, waiting);
    try {
      const logLevel =
        scope.envelope?.logLevel ?? (scope.era === "legacy" ? this.logLevel : null) ?? undefined;
      return await forwardRequest(slot, method, params, scope, this.options.requestTimeoutMs, logLevel);
    } finally {
      const at = waiting.lastIndexOf(scope);
      if (at >= 0) waiting.splice(at, 1);
    }
  }

  /**
   * `subscriptions/listen` (modern era): acknowledged with what toolgate will send (list changes of tools,
   * prompts and resources; resource subscriptions are not offered), then open until the client ends it.
   */
  private listen(params: Json, scope: RequestScope): Promise<Json> {
    const wanted = isJsonObject(params.notifications) ? params.notifications : {};
    const honored = new Set(LISTENABLE.filter((key) => wanted[key] === true));
    const id = { [META.subscriptionId]: scope.id };
    scope.notify("notifications/subscriptions/acknowledged", {
      notifications: Object.fromEntries([...honored].map((key) => [key, true])),
      _meta: id,
    });
    const listener = { scope, honored };
    this.listeners.add(listener);
    return new Promise((resolve) => {
      const end = (): void => {
        this.listeners.delete(listener);
        resolve({ _meta: id });
      };
      if (scope.signal.aborted) end();
      else scope.signal.addEventListener("abort", end, { once: true });
    });
  }

  // ---- server → client ---------------------------------------------------------------------------------

  /** The legacy connection of this session, through which servers' own requests and notifications go. */
  private legacyLink(): ClientLink | null {
    for (const link of this.links) if (link.protocolEra !== "modern") return link;
    return null;
  }

  /** Who this session shares servers with: its principal and what its client can do for a server. */
  private sharingAs(): string {
    return JSON.stringify([this.principal.key, this.mirroredCapabilities()]);
  }

  /** The client's capabilities a server may use through toolgate (it asks, toolgate asks the client). */
  private mirroredCapabilities(): JsonObject {
    const client = this.legacyLink()?.capabilities ?? {};
    const out: JsonObject = {};
    for (const key of ["roots", "sampling", "elicitation"])
      if (client[key] !== undefined) out[key] = client[key];
    return out;
  }

  /**
   * Over HTTP a message for the client travels on the stream of a request of that client. A server's own
   * request or notification is related to the newest client request waiting on that server, else on any
   * server, else it goes to the client's standalone stream.
   */
  private relatedRequest(server: string): RequestScope | undefined {
    const own = this.inFlight.get(server);
    if (own !== undefined && own.length > 0) return own[own.length - 1];
    for (const scopes of this.inFlight.values()) if (scopes.length > 0) return scopes[scopes.length - 1];
    return undefined;
  }

  /** What this session is to the servers it uses (shared or its own): see upstreamPool.ts. */
  private readonly member: LinkMember = {
    inFlight: (server) => this.inFlight.get(server)?.length ?? 0,
    serverRequest: (server, request, ctx) => this.serverRequest(server, request, ctx),
    serverNotification: (server, notification) => this.fromServer(server, notification),
    catalogFetched: (server, snapshot) => {
      const slot = this.slots.get(server);
      if (slot !== undefined) this.session.catalogFetched(slot.view, snapshot);
      // A server a list was answered without is up now: the client lists again and finds it.
      if (this.listedWithout.delete(server) && this.options.mode === "direct") {
        this.options.log(`MCP server '${server}' is up: announced to the client`);
        this.notifyClient("notifications/tools/list_changed");
      }
    },
    upstreamUp: (server, upstream, reconnected) => this.upstreamUp(server, upstream, reconnected),
    subscribed: (server, uri) => this.subscriptions.get(server)?.has(uri) === true,
  };

  /** A server's request to the client (sampling, elicitation, roots), passed to this session's client. */
  private async serverRequest(
    server: string,
    request: { method: string; params?: unknown },
    ctx: Parameters<LinkMember["serverRequest"]>[2],
  ): Promise<unknown> {
    if (!SERVER_TO_CLIENT_REQUESTS.has(request.method)) {
      throw new RelayedError(METHOD_NOT_FOUND, "Method not found");
    }
    const related = this.relatedRequest(server);
    const link = this.legacyLink();
    if (link === null || (related !== undefined && related.ask === null)) {
      throw new RelayedError(
        METHOD_NOT_FOUND,
        `toolgate cannot pass ${request.method} on: its client speaks protocol revision 2026-07-28, in which servers send no requests`,
      );
    }
    try {
      return await link.request(request.method, isJsonObject(request.params) ? request.params : {}, {
        signal: ctx.mcpReq.signal,
        timeoutMs: this.options.requestTimeoutMs,
        ...(related === undefined ? {} : { related: related.id }),
      });
    } catch (error) {
      throw relayed(error);
    }
  }

  private async fromServer(server: string, notification: { method: string; params?: Json }): Promise<void> {
    if (this.closed) return;
    if (nestedDeeperThan(notification, MAX_FRAME_DEPTH)) {
      this.options.log(
        `dropped notification ${notification.method} from '${server}': nested deeper than ${MAX_FRAME_DEPTH} levels`,
      );
      return;
    }
    const params = (notification.params ?? {}) as Json;
    const related = this.relatedRequest(server);
    switch (notification.method) {
      case "notifications/tools/list_changed": {
        const slot = this.slots.get(server);
        if (slot === undefined) return;
        await slot.link.toolsChanged();
        const state = await slot.link.catalogState();
        const now = state.ok ? this.session.visibleFingerprint(slot.view, state.snapshot) : "(unavailable)";
        // Announced only when what this client sees differs from what it was last shown (or told of): a
        // tool its context hides is not its news.
        if (this.options.mode !== "direct" || this.shownLists.get(server) === now) return;
        this.shownLists.set(server, now);
        this.notifyClient(notification.method);
        return;
      }
      case "notifications/resources/list_changed":
      case "notifications/prompts/list_changed":
        this.notifyClient(notification.method);
        return;
      case "notifications/resources/updated":
        // Only a resource this session subscribed to (a server shared by sessions updates each its own).
        if (typeof params.uri !== "string" || this.subscriptions.get(server)?.has(params.uri) !== true)
          return;
        this.notifyClient(
          notification.method,
          { ...params, uri: exposedResourceUri(server, params.uri) },
          related,
        );
        return;
      case "notifications/message": {
        const logger = typeof params.logger === "string" ? `${server}/${params.logger}` : server;
        const secrets = this.slots.get(server)?.secrets;
        const shown = { ...params, logger };
        this.notifyClient(notification.method, secrets === undefined ? shown : secrets.json(shown), related);
        return;
      }
      case "notifications/elicitation/complete":
        this.notifyClient(notification.method, params, related);
        return;
      default:
        this.options.log(
          `dropped notification ${notification.method} from '${server}' (not forwarded by serve)`,
        );
    }
  }

  /** To the client: on the stream of `related` when given, else on the legacy connection's own. */
  private notifyClient(method: string, params?: Json, related?: RequestScope): void {
    if (this.closed) return;
    if (related !== undefined) {
      // A modern request gets log messages only when it asked for them, at its level or above.
      if (method === "notifications/message" && related.era === "modern" && !wantsLog(related, params))
        return;
      related.notify(method, params);
      return;
    }
    this.legacyLink()?.notify(method, params);
    const key = LISTEN_KEYS[method];
    if (key === undefined) return;
    for (const { scope, honored } of this.listeners) {
      if (honored.has(key)) scope.notify(method, { ...params, _meta: { [META.subscriptionId]: scope.id } });
    }
  }

  /** After each connection: the session's logging level and subscriptions apply to the new connection too. */
  private upstreamUp(server: string, upstream: Upstream, reconnected: boolean): void {
    if (this.logLevel !== null) void setUpstreamLevel(upstream, this.logLevel).catch(() => {});
    if (upstream.client.getProtocolEra() === "modern") {
      // A modern server announces changes only on a listen stream: toolgate keeps one open per connection.
      void upstream.client
        .listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true })
        .catch((e: unknown) => this.options.log(`[${server}] subscriptions/listen failed: ${messageOf(e)}`));
    }
    if (!reconnected) return;
    if (upstream.client.getProtocolEra() !== "modern") {
      for (const uri of this.subscriptions.get(server) ?? []) {
        void upstream.client.subscribeResource({ uri }).catch(() => {});
      }
    }
    this.options.log(`MCP server '${server}' is connected again`);
    // Its catalog may have changed while it was away.
    if (this.options.mode === "direct") this.notifyClient("notifications/tools/list_changed");
  }
}

/** What a listen stream may ask for, and the notification each stands for. */
const LISTENABLE = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"];
const LISTEN_KEYS: Record<string, string> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

function wantsLog(scope: RequestScope, params: Json | undefined): boolean {
  const wanted = scope.envelope?.logLevel;
  if (wanted === undefined) return false;
  const level = typeof params?.level === "string" ? LOG_LEVELS.indexOf(params.level) : -1;
  return level >= LOG_LEVELS.indexOf(wanted);
}

/** `logging/setLevel` for a legacy server that logs; a modern server takes the level with each request. */
async function setUpstreamLevel(upstream: Upstream, level: string): Promise<void> {
  if (upstream.capabilities.logging === undefined || upstream.client.getProtocolEra() === "modern") return;
  await upstream.client.setLoggingLevel(level as never);
}
