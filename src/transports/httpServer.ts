import { randomUUID } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { frameEnvelope } from "../engine/rpc/frameEnvelope.js";
import { classifyMessage, type JsonRpcId } from "../engine/rpc/jsonRpc.js";
import { parseStrictJson } from "../engine/json/strictJson.js";
import {
  allowedHostSet,
  BearerTokens,
  hostAllowed,
  isOwnOrigin,
  normalizeOrigin,
  originAllowed,
} from "./httpGuard.js";
import { HttpSessionTransport } from "./httpSessionTransport.js";
import { ModernExchanges, unsupportedVersion, versionRepeated } from "./modernExchanges.js";
import { LEGACY_VERSIONS, MODERN_VERSIONS } from "../engine/protocol/eras.js";
import { claimsModernEra, missingEnvelope } from "../engine/protocol/envelope.js";
import { admitSession, defaultPerTokenSessions } from "./sessionAdmission.js";
import { answerOAuthDiscovery, isOAuthDiscoveryPath } from "./oauthDiscovery.js";
import { acknowledgeHop, forwardToOwner, wasForwarded, type SessionDirectory } from "./replicaForward.js";
import { ownershipTtlMs, startOwnershipRenewal } from "./ownershipRenewal.js";
import { oauthIdentity, type OAuthEndpoint } from "./httpAuth.js";
import { accepts, isJsonContentType, readBody, sendError } from "./httpMessages.js";
import type { Principal } from "../engine/model/principal.js";

/**
 * `toolgate serve --http`: the Streamable HTTP endpoint (`/mcp`) on node:http. Every request is checked in
 * this order, each failure answered with a JSON-RPC error body: Host (403) and Origin (403) against DNS
 * rebinding, the bearer token (401), then for POST the body size (413, counted as it arrives and never
 * buffered past the limit), media types (406, 415), strict JSON (400) and the session (400, 404). Each MCP
 * session has its own gateway session, with the context of the token that opened it; a session answers
 * only to that token.
 */

import type { HttpClientIdentity, McpSessionEndpoint } from "./httpEndpoint.js";

export type { HttpClientIdentity, McpSessionEndpoint };

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
  log(line: string): void;
}

export interface RunningHttpServer {
  url: string;
  port: number;
  sessions(): number;
  close(): Promise<void>;
}

export const MCP_PATH = "/mcp";
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

interface LiveSession<T> {
  token: T;
  session: McpSessionEndpoint;
  transport: HttpSessionTransport;
  lastSeen: number;
  /** When the shared directory last heard that this replica owns it. */
  ownedAt: number;
}

export async function startHttpServer<T extends HttpClientIdentity>(
  options: HttpServeOptions<T>,
): Promise<RunningHttpServer> {
  const tokens = new BearerTokens(options.tokens);
  const otherDoor = new BearerTokens(options.otherDoorTokens ?? []);
  const origins = new Set(options.allowedOrigins.map(normalizeOrigin));
  const sessions = new Map<string, LiveSession<T>>();
  const modern = new ModernExchanges<T>(options);
  const limits = {
    total: options.maxSessions,
    perToken:
      options.maxSessionsPerToken ?? defaultPerTokenSessions(options.maxSessions, options.tokens.length),
  };
  let hosts = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, hosts)) {
      sendError(
        res,
        403,
        -32000,
        `Forbidden: Host '${req.headers.host ?? ""}' is not accepted by this server`,
      );
      return;
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, origins) && !isOwnOrigin(origin, hosts)) {
      sendError(res, 403, -32000, `Forbidden: Origin '${origin ?? ""}' is not allowed (--allowed-origin)`);
      return;
    }
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
    const operator = otherDoor.match(req.headers.authorization);
    if (operator !== null) {
      const reason = `${operator.principal.name} may not call tools (its tokens-file entry has no 'mcp' in use:); an MCP client needs an entry with use: [mcp]`;
      options.onAuthRefused?.({
        method: `HTTP ${String(req.method)}`,
        status: 403,
        code: "E_AUTH_USE",
        reason,
      });
      sendError(res, 403, -32001, `Forbidden: ${reason}`);
      return;
    }
    const token =
      tokens.match(req.headers.authorization) ??
      (await oauthIdentity(req, res, options.oauth, options.onAuthRefused));
    if (token === null) return;
    const version = req.headers["mcp-protocol-version"];
    // Given on several lines (node joins them), a POST's is judged with its body: a modern one is refused
    // as HeaderMismatch (handleModern), any other as unsupported (handlePost).
    if (
      typeof version === "string" &&
      !(req.method === "POST" && versionRepeated(req)) &&
      !LEGACY_VERSIONS.includes(version) &&
      !MODERN_VERSIONS.includes(version)
    ) {
      modern.refuse(res, token, `HTTP ${String(req.method)}`, null, unsupportedVersion(version));
      return;
    }
    switch (req.method) {
      case "POST":
        return handlePost(req, res, token);
      case "GET":
        return handleGet(req, res, token);
      case "DELETE":
        return handleDelete(req, res, token);
      default:
        sendError(res, 405, -32000, "Method Not Allowed", { allow: "GET, POST, DELETE" });
    }
  };

  /**
   * The session this request names, answering 400/404 itself when there is none for this token, or
   * passing the request to the replica that owns it (`body`: the request's body, already read).
   */
  const sessionOf = async (
    req: IncomingMessage,
    res: ServerResponse,
    token: T,
    body: string | null,
  ): Promise<LiveSession<T> | null> => {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return null;
    }
    const live = sessions.get(id);
    const directory = options.directory;
    const forwarded = directory !== undefined && wasForwarded(req, directory);
    if (live === undefined && directory !== undefined && !forwarded) {
      const owner = await directory.ownerOf(id).catch(() => null);
      if (owner !== null && owner !== directory.self) {
        const proof = directory.proveHop(id, owner);
        if (await forwardToOwner(req, res, owner, req.url ?? MCP_PATH, body, proof)) return null;
        options.log(
          `session ${id}: its replica ${owner} does not answer; the client must open a new session`,
        );
      }
    }
    // Another principal's session is answered exactly like one that does not exist.
    if (live === undefined || live.token.principal.key !== token.principal.key || live.transport.isClosed) {
      sendError(res, 404, -32001, "Session not found");
      return null;
    }
    live.lastSeen = Date.now();
    // The replica that passed this on stops waiting for a sign of life: the answer may take its time.
    if (forwarded) acknowledgeHop(res);
    return live;
  };

  const handlePost = async (req: IncomingMessage, res: ServerResponse, token: T): Promise<void> => {
    if (!isJsonContentType(req.headers["content-type"])) {
      sendError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
      return;
    }
    if (!accepts(req, "application/json", "text/event-stream")) {
      sendError(
        res,
        406,
        -32000,
        "Not Acceptable: Accept must include application/json and text/event-stream",
      );
      return;
    }
    const body = await readBody(req, options.maxBodyBytes);
    if (!body.ok) {
      if (body.status === 413) {
        // The rest of the body is never read: the connection is closed once the answer is out.
        res.on("finish", () => req.destroy());
        sendError(res, 413, -32000, `Payload Too Large: ${body.message} (--max-body-bytes)`, {
          connection: "close",
        });
      } else sendError(res, 400, -32700, `Parse error: ${body.message}`);
      return;
    }
    const parsed = parseStrictJson(body.text, { maxDepth: MAX_FRAME_DEPTH, exactNumbers: true });
    // A refused request is answered under its own id when it has one unambiguous id.
    const refusedId = (): JsonRpcId | null => {
      const envelope = frameEnvelope(body.text);
      return envelope.hasMethod ? envelope.id : null;
    };
    if (!parsed.ok) {
      sendError(
        res,
        400,
        parsed.code === "E_JSON_SYNTAX" ? -32700 : -32600,
        `${parsed.code}: ${parsed.message}`,
        {},
        parsed.code === "E_JSON_SYNTAX" ? null : refusedId(),
      );
      return;
    }
    if (Array.isArray(parsed.value)) {
      sendError(
        res,
        400,
        -32600,
        "Invalid Request: JSON-RPC batches are not accepted; send one message per request",
      );
      return;
    }
    const classified = classifyMessage(parsed.value);
    if (classified.kind === "invalid") {
      sendError(res, 400, -32600, `Invalid Request: ${classified.reason}`, {}, refusedId());
      return;
    }
    const message = classified.message;
    const modernVersion =
      typeof req.headers["mcp-protocol-version"] === "string" &&
      MODERN_VERSIONS.includes(req.headers["mcp-protocol-version"]);
    if (classified.kind !== "response" && claimsModernEra(classified.message.params)) {
      return modern.handle(req, res, token, classified.message);
    }
    if (modernVersion && classified.kind !== "response") {
      const id = classified.kind === "request" ? classified.message.id : null;
      const error = missingEnvelope();
      return modern.refuse(res, token, classified.message.method, id, {
        code: error.code,
        message: `Invalid params: the MCP-Protocol-Version header names a modern revision, but ${error.message}`,
      });
    }
    if (versionRepeated(req) && classified.kind !== "response") {
      const id = classified.kind === "request" ? classified.message.id : null;
      const error = unsupportedVersion(String(req.headers["mcp-protocol-version"]));
      return modern.refuse(res, token, classified.message.method, id, error);
    }
    const isInitialize = classified.kind === "request" && classified.message.method === "initialize";
    if (!isInitialize) {
      const live = await sessionOf(req, res, token, body.text);
      if (live !== null) live.transport.post(message, res, req.headers);
      return;
    }
    if (req.headers["mcp-session-id"] !== undefined) {
      sendError(
        res,
        400,
        -32600,
        "Invalid Request: initialize opens a new session; send it without Mcp-Session-Id",
      );
      return;
    }
    const admission = admitSession(
      [...sessions].map(([id, live]) => ({
        id,
        token: live.token.principal.key,
        lastSeen: live.lastSeen,
        inUse: live.transport.busy || live.transport.streaming,
      })),
      token.principal.key,
      token.principal.name,
      limits,
    );
    if (admission.kind === "refuse") {
      sendError(res, admission.status, -32000, admission.message, {}, classified.message.id);
      return;
    }
    if (admission.evict !== null) {
      const evicted = sessions.get(admission.evict)!;
      // Out of the map now, so its next request gets 404 and the slot is free for this one.
      sessions.delete(admission.evict);
      options.log(
        `session ${admission.evict} (${evicted.token.principal.name}) evicted, idle ${Math.round((Date.now() - evicted.lastSeen) / 1000)} s without an open stream: ${admission.why}`,
      );
      void evicted.session.close();
    }
    const sessionId = randomUUID();
    let session: McpSessionEndpoint;
    try {
      session = options.createSession(token, sessionId);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      options.log(`refused a session for ${token.principal.name}: ${text}`);
      sendError(res, 500, -32603, `toolgate could not open a session: ${text}`, {}, classified.message.id);
      return;
    }
    const transport = new HttpSessionTransport(sessionId);
    const live: LiveSession<T> = { token, session, transport, lastSeen: Date.now(), ownedAt: Date.now() };
    sessions.set(sessionId, live);
    const directory = options.directory;
    if (directory !== undefined) {
      await directory
        .own(sessionId, directory.self, ownershipTtlMs(options.idleTimeoutMs))
        .catch((error: unknown) => {
          options.log(
            `session ${sessionId}: other replicas cannot find it (${error instanceof Error ? error.message : String(error)}); it works here`,
          );
        });
    }
    session.onclose = () => {
      if (sessions.get(sessionId) === live) sessions.delete(sessionId);
      void directory?.disown(sessionId).catch(() => undefined);
      options.log(`session ${sessionId} (${token.principal.name}) closed`);
    };
    await session.connect(transport);
    options.log(`session ${sessionId} opened for ${token.principal.name}`);
    transport.post(message, res, req.headers);
  };

  const handleGet = async (req: IncomingMessage, res: ServerResponse, token: T): Promise<void> => {
    if (!accepts(req, "text/event-stream")) {
      sendError(res, 406, -32000, "Not Acceptable: Accept must include text/event-stream");
      return;
    }
    const live = await sessionOf(req, res, token, null);
    if (live === null) return;
    if (!live.transport.openStream(res)) {
      sendError(res, 409, -32000, "Conflict: this session already has an open stream");
    }
  };

  const handleDelete = async (req: IncomingMessage, res: ServerResponse, token: T): Promise<void> => {
    const live = await sessionOf(req, res, token, null);
    if (live === null) return;
    await live.session.close();
    res.writeHead(200, { "mcp-session-id": live.transport.sessionId ?? "" }).end();
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
  hosts = allowedHostSet(options.host, port, options.allowedHosts);

  const sweep = setInterval(
    () => {
      const now = Date.now();
      modern.sweep(now, options.idleTimeoutMs);
      for (const [id, live] of sessions) {
        if (now - live.lastSeen > options.idleTimeoutMs && !live.transport.busy) {
          options.log(
            `session ${id} (${live.token.principal.name}) idle for ${Math.round((now - live.lastSeen) / 1000)} s`,
          );
          void live.session.close();
        }
      }
    },
    Math.min(60_000, Math.max(1000, Math.floor(options.idleTimeoutMs / 4))),
  );
  sweep.unref();
  const stopRenewal =
    options.directory === undefined
      ? () => undefined
      : startOwnershipRenewal(options.directory, options.idleTimeoutMs, sessions);

  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      stopRenewal();
      await Promise.all([...sessions.values()].map((s) => s.session.close()));
      await modern.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
