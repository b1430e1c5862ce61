import type { IncomingMessage, ServerResponse } from "node:http";
import { claimsModernEra, missingEnvelope, readEnvelope } from "../engine/protocol/envelope.js";
import { LEGACY_VERSIONS, MODERN_VERSIONS, UNSUPPORTED_PROTOCOL_VERSION } from "../engine/protocol/eras.js";
import { standardHeaderMismatch, withRepeatedLines } from "../engine/protocol/mirroredHeaders.js";
import type {
  ClassifiedMessage,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
} from "../engine/rpc/jsonRpc.js";
import type { HttpClientIdentity, McpSessionEndpoint } from "./httpEndpoint.js";
import { sendError } from "./httpMessages.js";
import { HttpSessionTransport } from "./httpSessionTransport.js";

/** The gateway session serving one principal's modern-era requests. */
interface PrincipalSession {
  endpoint: McpSessionEndpoint;
  lastSeen: number;
  /** Exchanges in progress. */
  active: number;
}

/** A request that repeats the MCP-Protocol-Version header (two lines, or a list). */
export function versionRepeated(req: IncomingMessage): boolean {
  return (req.headersDistinct["mcp-protocol-version"]?.length ?? 0) > 1;
}

export function unsupportedVersion(version: string): { code: number; message: string; data: unknown } {
  return {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version: ${version} (the MCP-Protocol-Version header)`,
    data: { supported: [...MODERN_VERSIONS, ...LEGACY_VERSIONS], requested: version },
  };
}

/**
 * Requests of the modern era over HTTP: no session; each is an exchange of its own on the gateway session of
 * its token's principal (made on first use, closed when idle). The envelope and the mirrored headers are
 * checked before anything is served; a refusal is answered with HTTP 400 and recorded by that session.
 */
export class ModernExchanges<T extends HttpClientIdentity> {
  private readonly principals = new Map<string, PrincipalSession>();

  constructor(
    private readonly options: {
      createPrincipal(token: T): McpSessionEndpoint;
      log(line: string): void;
    },
  ) {}

  /**
   * A request whose MCP-Protocol-Version header names no revision we speak, refused (true) before anything
   * else reads it. Given on several lines (node joins them), a POST's is judged with its body: a modern one
   * is refused as HeaderMismatch (handle), any other as unsupported (route).
   */
  refusesVersionHeader(req: IncomingMessage, res: ServerResponse, token: T): boolean {
    const version = req.headers["mcp-protocol-version"];
    if (
      typeof version === "string" &&
      !(req.method === "POST" && versionRepeated(req)) &&
      !LEGACY_VERSIONS.includes(version) &&
      !MODERN_VERSIONS.includes(version)
    ) {
      this.refuse(res, token, `HTTP ${String(req.method)}`, null, unsupportedVersion(version));
      return true;
    }
    return false;
  }

  /**
   * A POSTed message that belongs to no session: one of the modern era (served here), or one whose headers
   * claim an era its body does not (refused here). Returns false for a message of the session eras, which
   * the caller serves.
   */
  async route(
    req: IncomingMessage,
    res: ServerResponse,
    token: T,
    classified: Exclude<ClassifiedMessage, { kind: "invalid" }>,
  ): Promise<boolean> {
    if (classified.kind === "response") return false;
    const message = classified.message;
    if (claimsModernEra(message.params)) {
      await this.handle(req, res, token, message);
      return true;
    }
    const id = classified.kind === "request" ? classified.message.id : null;
    const header = req.headers["mcp-protocol-version"];
    if (typeof header === "string" && MODERN_VERSIONS.includes(header)) {
      const error = missingEnvelope();
      this.refuse(res, token, message.method, id, {
        code: error.code,
        message: `Invalid params: the MCP-Protocol-Version header names a modern revision, but ${error.message}`,
      });
      return true;
    }
    if (versionRepeated(req)) {
      this.refuse(res, token, message.method, id, unsupportedVersion(String(header)));
      return true;
    }
    return false;
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    token: T,
    message: JsonRpcRequest | JsonRpcNotification,
  ): Promise<void> {
    const id = "id" in message ? (message.id as JsonRpcId) : null;
    if (req.headers["mcp-session-id"] !== undefined) {
      return this.refuse(res, token, message.method, id, {
        code: -32600,
        message: `Invalid Request: a request of revision ${MODERN_VERSIONS[0]} belongs to no session; send it without Mcp-Session-Id (sessions are for clients that began with initialize)`,
      });
    }
    const params = message.params ?? {};
    const reading = readEnvelope(params);
    if (!reading.ok) return this.refuse(res, token, message.method, id, reading.error);
    const headers = withRepeatedLines(req.headers, req.headersDistinct);
    const mismatch = standardHeaderMismatch(headers, message.method, params, reading.envelope.version);
    if (mismatch !== null) return this.refuse(res, token, message.method, id, mismatch);
    if (id === null) {
      // The revision defines no notification from client to server over HTTP (cancelling is closing the stream).
      res.writeHead(202).end();
      return;
    }
    let principal: PrincipalSession;
    try {
      principal = this.principalOf(token);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.options.log(`refused a request of ${token.principal.name}: ${text}`);
      sendError(res, 500, -32603, `toolgate could not serve the request: ${text}`, {}, id);
      return;
    }
    principal.lastSeen = Date.now();
    principal.active++;
    res.on("close", () => {
      principal.active--;
      principal.lastSeen = Date.now();
    });
    const exchange = new HttpSessionTransport(null);
    await principal.endpoint.connect(exchange, { era: "modern" });
    exchange.post(message, res, headers);
  }

  /** A modern request refused for its form: answered with HTTP 400, and recorded by its token's session. */
  refuse(
    res: ServerResponse,
    token: T,
    method: string,
    id: JsonRpcId | null,
    error: { code: number; message: string; data?: unknown },
  ): void {
    try {
      this.principalOf(token).endpoint.refused(method, id, error);
    } catch (failure) {
      this.options.log(
        `could not record a refusal for ${token.principal.name}: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    }
    sendError(res, 400, error.code, error.message, {}, id, error.data);
  }

  /** Closes the sessions of principals with no exchange in progress and none for `idleMs`. */
  sweep(now: number, idleMs: number): void {
    for (const [key, principal] of this.principals) {
      if (principal.active === 0 && now - principal.lastSeen > idleMs) {
        this.principals.delete(key);
        void principal.endpoint.close();
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.principals.values()].map((p) => p.endpoint.close()));
  }

  private principalOf(token: T): PrincipalSession {
    let found = this.principals.get(token.principal.key);
    if (found === undefined) {
      found = { endpoint: this.options.createPrincipal(token), lastSeen: Date.now(), active: 0 };
      this.principals.set(token.principal.key, found);
      this.options.log(
        `serving ${token.principal.name} in protocol revision ${MODERN_VERSIONS[0]} (no session)`,
      );
    }
    return found;
  }
}
