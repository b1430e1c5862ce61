import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import type { ToolSession } from "../session/toolSession.js";
import type { Upstream } from "../upstream/upstream.js";
import type { ClientLink, RequestScope } from "./clientLink.js";
import { messageOf } from "./forwardRequest.js";
import { exposedResourceUri } from "./naming.js";
import { relayed, RelayedError } from "./relay.js";
import type { ServeMode } from "./serveMode.js";
import type { ServerSlot } from "./toolRouter.js";
import type { LinkMember } from "./upstreamPool.js";

/**
 * Server to client: what a session's servers send its client (their requests for sampling, elicitation and
 * roots; their notifications), and what a session renews on each new connection to a server. A shared
 * server's messages reach each session through its own relay, so a client hears only of its own.
 */

type Json = Record<string, unknown>;

/** What an upstream server may ask the client, forwarded to this session's client and answered back. */
const SERVER_TO_CLIENT_REQUESTS = new Set(["sampling/createMessage", "elicitation/create", "roots/list"]);
const METHOD_NOT_FOUND = -32601;

/** What the relay reads of its session (gatewaySession.ts). */
export interface RelayContext {
  readonly slots: ReadonlyMap<string, ServerSlot>;
  readonly session: ToolSession;
  readonly mode: ServeMode;
  /** Per server, what this session's client was last shown of its tools (see visibleFingerprint). */
  readonly shownLists: Map<string, string>;
  /** Resource subscriptions per server (the server's own URIs). */
  readonly subscriptions: ReadonlyMap<string, Set<string>>;
  readonly requestTimeoutMs: number;
  closed(): boolean;
  logLevel(): string | null;
  legacyLink(): ClientLink | null;
  relatedRequest(server: string): RequestScope | undefined;
  notifyClient(method: string, params?: Json, related?: RequestScope): void;
  log(line: string): void;
}

/** A server's request to the client (sampling, elicitation, roots), passed to this session's client. */
export async function relayServerRequest(
  ctx: RelayContext,
  server: string,
  request: { method: string; params?: unknown },
  mcpCtx: Parameters<LinkMember["serverRequest"]>[2],
): Promise<unknown> {
  if (!SERVER_TO_CLIENT_REQUESTS.has(request.method)) {
    throw new RelayedError(METHOD_NOT_FOUND, "Method not found");
  }
  const related = ctx.relatedRequest(server);
  const link = ctx.legacyLink();
  if (link === null || (related !== undefined && related.ask === null)) {
    throw new RelayedError(
      METHOD_NOT_FOUND,
      `toolgate cannot pass ${request.method} on: its client speaks protocol revision 2026-07-28, in which servers send no requests`,
    );
  }
  try {
    return await link.request(request.method, isJsonObject(request.params) ? request.params : {}, {
      signal: mcpCtx.mcpReq.signal,
      timeoutMs: ctx.requestTimeoutMs,
      ...(related === undefined ? {} : { related: related.id }),
    });
  } catch (error) {
    throw relayed(error);
  }
}

/** A server's notification: passed on, rewritten (URIs, loggers) or dropped, as serve forwards it. */
export async function relayServerNotification(
  ctx: RelayContext,
  server: string,
  notification: { method: string; params?: Json },
): Promise<void> {
  if (ctx.closed()) return;
  if (nestedDeeperThan(notification, MAX_FRAME_DEPTH)) {
    ctx.log(
      `dropped notification ${notification.method} from '${server}': nested deeper than ${MAX_FRAME_DEPTH} levels`,
    );
    return;
  }
  const params = (notification.params ?? {}) as Json;
  const related = ctx.relatedRequest(server);
  switch (notification.method) {
    case "notifications/tools/list_changed": {
      const slot = ctx.slots.get(server);
      if (slot === undefined) return;
      await slot.link.toolsChanged();
      const state = await slot.link.catalogState();
      const now = state.ok ? ctx.session.visibleFingerprint(slot.view, state.snapshot) : "(unavailable)";
      // Announced only when what this client sees differs from what it was last shown (or told of): a
      // tool its context hides is not its news.
      if (ctx.mode !== "direct" || ctx.shownLists.get(server) === now) return;
      ctx.shownLists.set(server, now);
      ctx.notifyClient(notification.method);
      return;
    }
    case "notifications/resources/list_changed":
    case "notifications/prompts/list_changed":
      ctx.notifyClient(notification.method);
      return;
    case "notifications/resources/updated":
      // Only a resource this session subscribed to (a server shared by sessions updates each its own).
      if (typeof params.uri !== "string" || ctx.subscriptions.get(server)?.has(params.uri) !== true) return;
      ctx.notifyClient(
        notification.method,
        { ...params, uri: exposedResourceUri(server, params.uri) },
        related,
      );
      return;
    case "notifications/message": {
      const logger = typeof params.logger === "string" ? `${server}/${params.logger}` : server;
      const secrets = ctx.slots.get(server)?.secrets;
      const shown = { ...params, logger };
      ctx.notifyClient(notification.method, secrets === undefined ? shown : secrets.json(shown), related);
      return;
    }
    case "notifications/elicitation/complete":
      ctx.notifyClient(notification.method, params, related);
      return;
    default:
      ctx.log(`dropped notification ${notification.method} from '${server}' (not forwarded by serve)`);
  }
}

/** After each connection: the session's logging level and subscriptions apply to the new connection too. */
export function upstreamConnected(
  ctx: RelayContext,
  server: string,
  upstream: Upstream,
  reconnected: boolean,
): void {
  const logLevel = ctx.logLevel();
  if (logLevel !== null) void setUpstreamLevel(upstream, logLevel).catch(() => {});
  if (upstream.client.getProtocolEra() === "modern") {
    // A modern server announces changes only on a listen stream: toolgate keeps one open per connection.
    void upstream.client
      .listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true })
      .catch((e: unknown) => ctx.log(`[${server}] subscriptions/listen failed: ${messageOf(e)}`));
  }
  if (!reconnected) return;
  if (upstream.client.getProtocolEra() !== "modern") {
    for (const uri of ctx.subscriptions.get(server) ?? []) {
      void upstream.client.subscribeResource({ uri }).catch(() => {});
    }
  }
  ctx.log(`MCP server '${server}' is connected again`);
  // Its catalog may have changed while it was away.
  if (ctx.mode === "direct") ctx.notifyClient("notifications/tools/list_changed");
}

/** `logging/setLevel` for a legacy server that logs; a modern server takes the level with each request. */
export async function setUpstreamLevel(upstream: Upstream, level: string): Promise<void> {
  if (upstream.capabilities.logging === undefined || upstream.client.getProtocolEra() === "modern") return;
  await upstream.client.setLoggingLevel(level as never);
}
