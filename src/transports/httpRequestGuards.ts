import type { IncomingMessage, ServerResponse } from "node:http";
import type { Principal } from "../engine/model/principal.js";
import { oauthIdentity, type AuthRefused, type OAuthEndpoint } from "./httpAuth.js";
import { BearerTokens, hostAllowed, isOwnOrigin, normalizeOrigin, originAllowed } from "./httpGuard.js";
import { sendError } from "./httpMessages.js";

/** What the guards are told by the listener's options. */
export interface GuardOptions<T> {
  tokens: readonly (T & { digest: Buffer })[];
  otherDoorTokens?: readonly { digest: Buffer; principal: Principal }[];
  allowedOrigins: readonly string[];
  oauth?: OAuthEndpoint<T>;
  onAuthRefused?: AuthRefused;
}

/**
 * The checks a request to `toolgate serve --http` passes before anything reads it, each refusal answered
 * here with a JSON-RPC error body. Two steps, because the pages served without a bearer token (/ui/, OAuth
 * metadata) sit between them: first where the request comes from (Host and Origin, 403: a web page must not
 * reach a local gateway by DNS rebinding), then who sends it (the bearer token: 401, or 403 for a token of
 * another door).
 */
export class HttpRequestGuards<T> {
  private tokens: BearerTokens<T & { digest: Buffer }>;
  private otherDoor: BearerTokens<{ digest: Buffer; principal: Principal }>;
  private readonly origins: Set<string>;
  /** The Host values accepted; known once the listener has its port (see {@link acceptHosts}). */
  private hosts = new Set<string>();

  constructor(private readonly options: GuardOptions<T>) {
    this.tokens = new BearerTokens(options.tokens);
    this.otherDoor = new BearerTokens(options.otherDoorTokens ?? []);
    this.origins = new Set(options.allowedOrigins.map(normalizeOrigin));
  }

  /** A reload: from the next request on, these tokens are admitted (a removed one gets 401). */
  replaceTokens(
    tokens: readonly (T & { digest: Buffer })[],
    otherDoor: readonly { digest: Buffer; principal: Principal }[],
  ): void {
    this.tokens = new BearerTokens(tokens);
    this.otherDoor = new BearerTokens(otherDoor);
  }

  acceptHosts(hosts: Set<string>): void {
    this.hosts = hosts;
  }

  /** Host and Origin: false with the 403 answered when either is not accepted. */
  admitsOrigin(req: IncomingMessage, res: ServerResponse): boolean {
    if (!hostAllowed(req.headers.host, this.hosts)) {
      sendError(
        res,
        403,
        -32000,
        `Forbidden: Host '${req.headers.host ?? ""}' is not accepted by this server`,
      );
      return false;
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.origins) && !isOwnOrigin(origin, this.hosts)) {
      sendError(res, 403, -32000, `Forbidden: Origin '${origin ?? ""}' is not allowed (--allowed-origin)`);
      return false;
    }
    return true;
  }

  /** Who sends this request to /mcp: its static or OAuth identity, or `null` with the refusal answered. */
  async identify(req: IncomingMessage, res: ServerResponse): Promise<T | null> {
    const operator = this.otherDoor.match(req.headers.authorization);
    if (operator !== null) {
      const reason = `${operator.principal.name} may not call tools (its tokens-file entry has no 'mcp' in use:); an MCP client needs an entry with use: [mcp]`;
      this.options.onAuthRefused?.({
        method: `HTTP ${String(req.method)}`,
        status: 403,
        code: "E_AUTH_USE",
        reason,
      });
      sendError(res, 403, -32001, `Forbidden: ${reason}`);
      return null;
    }
    return (
      this.tokens.match(req.headers.authorization) ??
      (await oauthIdentity(req, res, this.options.oauth, this.options.onAuthRefused))
    );
  }
}
