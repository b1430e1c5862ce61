import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcRequest } from "../engine/rpc/jsonRpc.js";
import { MCP_PATH, type HttpClientIdentity, type McpSessionEndpoint } from "./httpEndpoint.js";
import { accepts, sendError } from "./httpMessages.js";
import { HttpSessionTransport } from "./httpSessionTransport.js";
import { ownershipTtlMs } from "./ownershipRenewal.js";
import { acknowledgeHop, forwardToOwner, wasForwarded, type SessionDirectory } from "./replicaForward.js";
import { admitSession, defaultPerTokenSessions, type AdmissionLimits } from "./sessionAdmission.js";

/** One 2025-era session open on this replica. */
export interface LiveSession<T> {
  token: T;
  session: McpSessionEndpoint;
  transport: HttpSessionTransport;
  lastSeen: number;
  /** When the shared directory last heard that this replica owns it. */
  ownedAt: number;
}

/** What the sessions are told by the listener's options. */
export interface LegacySessionOptions<T> {
  tokens: readonly unknown[];
  maxSessions: number;
  maxSessionsPerToken?: number;
  idleTimeoutMs: number;
  createSession(token: T, sessionId: string): McpSessionEndpoint;
  directory?: SessionDirectory;
  log(line: string): void;
}

/**
 * The sessions of clients that began with `initialize` (the protocol revisions with sessions): who may open
 * one (quotas, evicting the idlest unused one: sessionAdmission.ts), which session a request names (answering
 * 400/404 itself, or passing the request to the replica that owns it), the event stream (GET) and the end
 * (DELETE) of one, and closing the idle ones. A session answers only to the token that opened it.
 */
export class LegacySessions<T extends HttpClientIdentity> {
  private readonly sessions = new Map<string, LiveSession<T>>();
  private readonly limits: AdmissionLimits;

  constructor(private readonly options: LegacySessionOptions<T>) {
    this.limits = {
      total: options.maxSessions,
      perToken:
        options.maxSessionsPerToken ?? defaultPerTokenSessions(options.maxSessions, options.tokens.length),
    };
  }

  /** The sessions open here, for the renewal of their ownership records (ownershipRenewal.ts). */
  get live(): ReadonlyMap<string, LiveSession<T>> {
    return this.sessions;
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The session this request names, answering 400/404 itself when there is none for this token, or
   * passing the request to the replica that owns it (`body`: the request's body, already read).
   */
  async find(
    req: IncomingMessage,
    res: ServerResponse,
    token: T,
    body: string | null,
  ): Promise<LiveSession<T> | null> {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return null;
    }
    const live = this.sessions.get(id);
    const directory = this.options.directory;
    const forwarded = directory !== undefined && wasForwarded(req, directory);
    if (live === undefined && directory !== undefined && !forwarded) {
      const owner = await directory.ownerOf(id).catch(() => null);
      if (owner !== null && owner !== directory.self) {
        const proof = directory.proveHop(id, owner);
        if (await forwardToOwner(req, res, owner, req.url ?? MCP_PATH, body, proof)) return null;
        this.options.log(
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
  }

  /** An `initialize`: a new session for `token` when its quota and the gateway's allow, which it answers. */
  async open(req: IncomingMessage, res: ServerResponse, token: T, message: JsonRpcRequest): Promise<void> {
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
      [...this.sessions].map(([id, live]) => ({
        id,
        token: live.token.principal.key,
        lastSeen: live.lastSeen,
        inUse: live.transport.busy || live.transport.streaming,
      })),
      token.principal.key,
      token.principal.name,
      this.limits,
    );
    if (admission.kind === "refuse") {
      sendError(res, admission.status, -32000, admission.message, {}, message.id);
      return;
    }
    if (admission.evict !== null) {
      const evicted = this.sessions.get(admission.evict)!;
      // Out of the map now, so its next request gets 404 and the slot is free for this one.
      this.sessions.delete(admission.evict);
      this.options.log(
        `session ${admission.evict} (${evicted.token.principal.name}) evicted, idle ${Math.round((Date.now() - evicted.lastSeen) / 1000)} s without an open stream: ${admission.why}`,
      );
      void evicted.session.close();
    }
    const sessionId = randomUUID();
    let session: McpSessionEndpoint;
    try {
      session = this.options.createSession(token, sessionId);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.options.log(`refused a session for ${token.principal.name}: ${text}`);
      sendError(res, 500, -32603, `toolgate could not open a session: ${text}`, {}, message.id);
      return;
    }
    const transport = new HttpSessionTransport(sessionId);
    const live: LiveSession<T> = { token, session, transport, lastSeen: Date.now(), ownedAt: Date.now() };
    this.sessions.set(sessionId, live);
    const directory = this.options.directory;
    if (directory !== undefined) {
      await directory
        .own(sessionId, directory.self, ownershipTtlMs(this.options.idleTimeoutMs))
        .catch((error: unknown) => {
          this.options.log(
            `session ${sessionId}: other replicas cannot find it (${error instanceof Error ? error.message : String(error)}); it works here`,
          );
        });
    }
    session.onclose = () => {
      if (this.sessions.get(sessionId) === live) this.sessions.delete(sessionId);
      void directory?.disown(sessionId).catch(() => undefined);
      this.options.log(`session ${sessionId} (${token.principal.name}) closed`);
    };
    await session.connect(transport);
    this.options.log(`session ${sessionId} opened for ${token.principal.name}`);
    transport.post(message, res, req.headers);
  }

  /** GET: the session's event stream (one at a time). */
  async stream(req: IncomingMessage, res: ServerResponse, token: T): Promise<void> {
    if (!accepts(req, "text/event-stream")) {
      sendError(res, 406, -32000, "Not Acceptable: Accept must include text/event-stream");
      return;
    }
    const live = await this.find(req, res, token, null);
    if (live === null) return;
    if (!live.transport.openStream(res)) {
      sendError(res, 409, -32000, "Conflict: this session already has an open stream");
    }
  }

  /** DELETE: the client ends its session. */
  async end(req: IncomingMessage, res: ServerResponse, token: T): Promise<void> {
    const live = await this.find(req, res, token, null);
    if (live === null) return;
    await live.session.close();
    res.writeHead(200, { "mcp-session-id": live.transport.sessionId ?? "" }).end();
  }

  /** Closes the sessions with no request for `idleMs` and none waiting for its answer. */
  sweep(now: number, idleMs: number): void {
    for (const [id, live] of this.sessions) {
      if (now - live.lastSeen > idleMs && !live.transport.busy) {
        this.options.log(
          `session ${id} (${live.token.principal.name}) idle for ${Math.round((now - live.lastSeen) / 1000)} s`,
        );
        void live.session.close();
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.session.close()));
  }
}
