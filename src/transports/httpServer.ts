import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Principal } from "../engine/model/principal.js";
import type { OAuthEndpoint } from "./httpAuth.js";
import { MCP_PATH, type HttpClientIdentity, type McpSessionEndpoint } from "./httpEndpoint.js";
import { allowedHostSet } from "./httpGuard.js";
import { sendError } from "./httpMessages.js";
import { handleMcpPost } from "./httpPost.js";
import { HttpRequestGuards } from "./httpRequestGuards.js";
import { DrainGate } from "./drainGate.js";
import { LegacySessions } from "./legacySessions.js";
import { ModernExchanges } from "./modernExchanges.js";
import { answerOAuthDiscovery, isOAuthDiscoveryPath } from "./oauthDiscovery.js";
import { startOwnershipRenewal } from "./ownershipRenewal.js";
import type { SessionDirectory } from "./replicaForward.js";

/**
 * `toolgate serve --http`: the Streamable HTTP endpoint (`/mcp`) on node:http. This file is the listener:
 * it binds, routes each request by path and method, closes idle sessions and shuts down. Every request is
 * checked in this order, each failure answered with a JSON-RPC error body: Host (403) and Origin (403)
 * against DNS rebinding, the bearer token (401) (httpRequestGuards.ts), the MCP-Protocol-Version header,
 * then for POST the body (httpPost.ts) and the session (400, 404: legacySessions.ts). Each MCP session has
 * its own gateway session, with the context of the token that opened it; a session answers only to that
 * token.
 */

export type { HttpClientIdentity, McpSessionEndpoint };
export { MCP_PATH };

export interface HttpServeOptions<T extends HttpClientIdentity> {
  host: string;
  port: number;
  /** The static tokens /mcp admits (each with the SHA-256 of the token). */
  tokens: readonly (T & { digest: Buffer })[];
  /**
   * Static tokens of principals that may not use /mcp (operators: `use: [dashboard]`): answered 403 with
   * why, rather than 401 as if the token were unknown.
   */
  otherDoorTokens?: readonly { digest: Buffer; principal: Principal }[];
  allowedOrigins: readonly string[];
  allowedHosts: readonly string[];
  maxBodyBytes: number;
  maxSessions: number;
  /** Most sessions one token may hold (default: an equal share of maxSessions, at least one). */
  maxSessionsPerToken?: number;
  /** A session without requests for this long is closed (its servers stopped). */
  idleTimeoutMs: number;
  /** A new gateway session for a client of `token`; throws to refuse (the message is shown to the client). */
  createSession(token: T, sessionId: string): McpSessionEndpoint;
  /**
   * The gateway session that serves `token`'s requests of the modern era, which have no sessions: one per
   * token, kept while it is used. Throws to refuse, like createSession.
   */
  createPrincipal(token: T): McpSessionEndpoint;
  /**
   * Replicas: where each 2025-era session lives. A request for a session another replica owns is passed
   * to it (replicaForward.ts). Absent: one gateway, sessions are local.
   */
  directory?: SessionDirectory;
  /** The dashboard's pages at /ui/ (serve --dashboard): their own sign-in; Host and Origin checked here first. */
  ui?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** OAuth 2.1 access tokens beside the static ones (resource server; see auth/resourceServer.ts). */
  oauth?: OAuthEndpoint<T>;
  /** A request refused before any session (bad or missing credentials), for the audit log; never the token. */
  onAuthRefused?(refusal: { method: string; status: number; code: string; reason: string }): void;
  /**
   * The operator's endpoints (/healthz, /readyz, /metrics: ops/opsRoutes.ts): `true` when it answered the
   * request. Asked before every other check, so probes answer whatever Host they send, during a drain too;
   * they reveal nothing without a token.
   */
  ops?: (req: IncomingMessage, res: ServerResponse) => boolean;
  log(line: string): void;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  sessions(): number;
  /**
   * Refuses new MCP requests (503) and resolves once the requests in flight are answered, or after
   * `timeoutMs` with how many were not. Close afterwards.
   */
  drain(timeoutMs: number): Promise<{ unfinished: number }>;
  readonly draining: boolean;
  /** A reload: the static tokens admitted from the next request on (as in HttpServeOptions). */
  replaceTokens(
    tokens: readonly (HttpClientIdentity & { digest: Buffer })[],
    otherDoorTokens: readonly { digest: Buffer; principal: Principal }[],
  ): void;
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function startHttpServer<T extends HttpClientIdentity>(
  options: HttpServeOptions<T>,
): Promise<RunningHttpServer> {
  const guards = new HttpRequestGuards<T>(options);
  const sessions = new LegacySessions<T>(options);
  const modern = new ModernExchanges<T>(options);
  const drain = new DrainGate();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (options.ops?.(req, res) === true) return;
    if (!guards.admitsOrigin(req, res)) return;
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (options.ui !== undefined && (path === "/ui" || path.startsWith("/ui/"))) return options.ui(req, res);
    const oauth = options.oauth;
    if (oauth !== undefined && oauth.metadataPaths().includes(path)) {
      const body = JSON.stringify(oauth.metadata());
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" }).end(body);
      return;
    }
    if (isOAuthDiscoveryPath(path)) {
      answerOAuthDiscovery(res, oauth === undefined ? null : String(oauth.metadata().resource));
      return;
    }
    if (path !== MCP_PATH) {
      sendError(res, 404, -32000, `Not Found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (drain.isDraining) {
      // Load balancers take the 503 and Retry-After as "another replica"; readiness already says not ready.
      sendError(res, 503, -32000, "Service Unavailable: this gateway is shutting down; retry", {
        "retry-after": "1",
        connection: "close",
      });
      return;
    }
    const token = await guards.identify(req, res);
    if (token === null) return;
    if (modern.refusesVersionHeader(req, res, token)) return;
    switch (req.method) {
      case "POST":
        return handleMcpPost(req, res, token, {
          maxBodyBytes: options.maxBodyBytes,
          modern,
          sessions,
          inFlight: (r) => drain.track(r),
        });
      case "GET":
        return sessions.stream(req, res, token);
      case "DELETE":
        return sessions.end(req, res, token);
      default:
        sendError(res, 405, -32000, "Method Not Allowed", { allow: "GET, POST, DELETE" });
    }
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendError(res, 500, -32603, "Internal error");
      else res.end();
    });
  });
  http.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  guards.acceptHosts(allowedHostSet(options.host, port, options.allowedHosts));

  const sweep = setInterval(
    () => {
      const now = Date.now();
      modern.sweep(now, options.idleTimeoutMs);
      sessions.sweep(now, options.idleTimeoutMs);
    },
    Math.min(60_000, Math.max(1000, Math.floor(options.idleTimeoutMs / 4))),
  );
  sweep.unref();
  const stopRenewal =
    options.directory === undefined
      ? () => undefined
      : startOwnershipRenewal(options.directory, options.idleTimeoutMs, sessions.live);

  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    sessions: () => sessions.size,
    drain: (timeoutMs) => drain.drain(timeoutMs),
    replaceTokens: (tokens, otherDoorTokens) =>
      guards.replaceTokens(tokens as readonly (T & { digest: Buffer })[], otherDoorTokens),
    get draining() {
      return drain.isDraining;
    },
    close: async () => {
      clearInterval(sweep);
      stopRenewal();
      await sessions.closeAll();
      await modern.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
