import { LOG_LEVELS, type Era } from "../engine/protocol/eras.js";
import type { SessionWatch } from "../ops/gatewayMetrics.js";
import type { ServerIdentity } from "../engine/protocol/resultShape.js";
import { INVALID_PARAMS, type JsonObject } from "../engine/rpc/jsonRpc.js";
import { MemoryApprovalClaims } from "../session/approvalClaims.js";
import { RequestStateCodec } from "../engine/protocol/requestState.js";
import { ApprovalRounds } from "../session/approvalRounds.js";
import { ToolSession, uncountedReason } from "../session/toolSession.js";
import type { MessageTransport } from "../transports/messageTransport.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
import { ClientLink, type ClientHandler, type RequestScope } from "./clientLink.js";
import { ClientStreams } from "./clientStreams.js";
import { forwardRequest, messageOf, unavailableError } from "./forwardRequest.js";
import { RelayedError } from "./relay.js";
import {
  relayServerNotification,
  relayServerRequest,
  setUpstreamLevel,
  upstreamConnected,
  type RelayContext,
} from "./serverRelay.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_LIST_WAIT_MS, type SessionOptions } from "./sessionOptions.js";
import { recordingOf } from "./sessionOptions.js";
import type { ServeMode } from "./serveMode.js";
import { serverSlot } from "./serverSlot.js";
import { ToolRouter, type ServerSlot } from "./toolRouter.js";
import { shareKey, UpstreamPool, type LinkMember } from "./upstreamPool.js";
import { ApprovalChannel } from "./approvalChannel.js";
import { ResourceRouter } from "./resourceRouter.js";
import { ItemGuard } from "../session/itemGuard.js";
import { localPrincipal, type Principal } from "../engine/model/principal.js";
import { noLongerEnabled, type SessionContext } from "./sessionContext.js";
import { gatewayCapabilities, relayRootsChanged } from "./gatewayCapabilities.js";
import { reloadableGate, type ReloadableGate } from "../engine/policy/reloadableGate.js";

export { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_LIST_WAIT_MS, type SessionOptions } from "./sessionOptions.js";

type Json = Record<string, unknown>;

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
  /** Modern clients' `subscriptions/listen` streams and the other ways the client is told things. */
  private readonly streams = new ClientStreams();
  ended = false; // closed: the gateway forgets it at its next reload
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
  private readonly counted: SessionWatch | undefined;

  /** Who this session serves (see SessionOptions.principal). */
  readonly principal: Principal;

  private readonly limits: ReloadableGate; // the policy's limits and digest, replaced by reconfigure
  constructor(private readonly options: SessionOptions) {
    const { context } = options;
    this.limits = reloadableGate(context.policy);
    this.principal = options.principal ?? localPrincipal(`session ${options.sessionId}`);
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    // A persistent session serves a principal's modern-era requests; the others are 2025-era sessions.
    this.counted = options.metrics?.session(options.persistent === true ? "modern" : "legacy");
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
      limits: this.limits.gate,
      ...recordingOf(options),
      approvalTimeoutMs: this.approvalTimeoutMs,
      log: options.log,
      principal: this.principal,
      servers: context.servers.length,
      approvalWays: { surface: "serve", dashboard: options.desk !== undefined },
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      ...(options.counter === undefined ? {} : { counter: options.counter }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
    this.order = context.servers.map((s) => s.name);
    for (const config of context.servers) {
      const slot = serverSlot(config, context.gates.get(config.name)!, options, {
        capabilities: () => this.mirroredCapabilities(),
        // Attached on first use, once the client has said what it can do: a server shared by sessions sees
        // one client, so only sessions whose clients can do the same (sampling, elicitation, roots) share it.
        attach: (make) => {
          const key = shareKey(config, this.sharingAs(), options.sessionId);
          this.shareKeys.set(config.name, key);
          return this.pool.attach(key, config.name, this.member, make);
        },
      });
      this.slots.set(config.name, slot);
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
    this.relay = {
      slots: this.slots,
      session: this.session,
      mode: options.mode,
      shownLists: this.shownLists,
      subscriptions: this.subscriptions,
      requestTimeoutMs: options.requestTimeoutMs,
      closed: () => this.ended,
      logLevel: () => this.logLevel,
      legacyLink: () => this.legacyLink(),
      relatedRequest: (server) => this.relatedRequest(server),
      notifyClient: (method, params, related) => this.notifyClient(method, params, related),
      log: options.log,
    };
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

  /** A reload: `next` decides from the next request on (a server it no longer enables hides every tool). */
  reconfigure(next: SessionContext): void {
    this.limits.replace(next.policy);
    for (const slot of this.slots.values())
      slot.view.gate = next.gates.get(slot.name) ?? noLongerEnabled(next.policy);
    this.notifyClient("notifications/tools/list_changed");
  }

  /** Ends the session: its client connections and its upstream connections (and the servers it started). */
  async close(): Promise<void> {
    await Promise.all([...this.links].map((link) => link.close()));
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.counted?.closed();
    await Promise.all([...this.shareKeys.values()].map((key) => this.pool.detach(key, this.member)));
    this.onclose?.();
  }

  // ---- the client's protocol (ClientHandler) -------------------------------------------------------------

  capabilities(era: Era): JsonObject {
    return gatewayCapabilities(era);
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
    if (method === "notifications/roots/list_changed") relayRootsChanged(this.slots.values());
  }

  async request(method: string, params: JsonObject, scope: RequestScope): Promise<JsonObject> {
    this.startServers();
    try {
      return await this.route(method, params, scope);
    } catch (error) {
      // A server that is down answers every request at once with why, as a JSON-RPC error.
      if (error instanceof UpstreamUnavailable) throw unavailableError(error);
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

  /** `subscriptions/listen` (modern era): see ClientStreams. */
  private listen(params: Json, scope: RequestScope): Promise<Json> {
    return this.streams.listen(params, scope);
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

  /** What the server → client relay reads of this session (serverRelay.ts). */
  private readonly relay: RelayContext;

  /** What this session is to the servers it uses (shared or its own): see upstreamPool.ts. */
  private readonly member: LinkMember = {
    inFlight: (server) => this.inFlight.get(server)?.length ?? 0,
    serverRequest: (server, request, ctx) => relayServerRequest(this.relay, server, request, ctx),
    serverNotification: (server, notification) => relayServerNotification(this.relay, server, notification),
    catalogFetched: (server, snapshot) => {
      const slot = this.slots.get(server);
      if (slot !== undefined) this.session.catalogFetched(slot.view, snapshot);
      // A server a list was answered without is up now: the client lists again and finds it.
      if (this.listedWithout.delete(server) && this.options.mode === "direct") {
        this.options.log(`MCP server '${server}' is up: announced to the client`);
        this.notifyClient("notifications/tools/list_changed");
      }
    },
    upstreamUp: (server, upstream, reconnected) =>
      upstreamConnected(this.relay, server, upstream, reconnected),
    subscribed: (server, uri) => this.subscriptions.get(server)?.has(uri) === true,
  };

  /** To the client: on the stream of `related` when given, else on the legacy connection's own. */
  private notifyClient(method: string, params?: Json, related?: RequestScope): void {
    if (this.ended) return;
    this.streams.notify(this.legacyLink(), method, params, related);
  }
}
