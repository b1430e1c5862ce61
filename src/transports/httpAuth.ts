import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthOutcome } from "../auth/resourceServer.js";
import { sendError } from "./httpMessages.js";
import { BEARER_HOW } from "./oauthDiscovery.js";

/** What the endpoint needs of the resource server. */
export interface OAuthEndpoint<T> {
  /** The protected resource metadata (RFC 9728) and the paths it is served at. */
  metadata(): Record<string, unknown>;
  metadataPaths(): readonly string[];
  challenge(problem?: { error: string; description: string }): string;
  authenticate(token: string): Promise<AuthOutcome<T>>;
}

export type AuthRefused = (refusal: { method: string; status: number; code: string; reason: string }) => void;

/**
 * The identity of a request that no static token matched: an OAuth access token's, or `null` with the
 * refusal answered. 401 without a token or with an invalid one, 403 when it lacks a scope or maps to no
 * principal, each with a `WWW-Authenticate` challenge saying what to do. Without OAuth: 401, as before.
 */
export async function oauthIdentity<T>(
  req: IncomingMessage,
  res: ServerResponse,
  oauth: OAuthEndpoint<T> | undefined,
  onRefused: AuthRefused | undefined,
): Promise<T | null> {
  const header = req.headers.authorization;
  const bearer = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  const refuse = (status: number, code: string, reason: string, wwwAuthenticate: string): null => {
    // A request that brought credentials is recorded (never the credentials); a bare probe is not.
    if (header !== undefined) onRefused?.({ method: `HTTP ${String(req.method)}`, status, code, reason });
    sendError(res, status, -32001, `${status === 401 ? "Unauthorized" : "Forbidden"}: ${reason}`, {
      "www-authenticate": wwwAuthenticate,
    });
    return null;
  };
  if (oauth === undefined) {
    return refuse(
      401,
      "E_AUTH_TOKEN",
      `a valid bearer token is required: ${BEARER_HOW}`,
      'Bearer realm="toolgate"',
    );
  }
  if (bearer === undefined) {
    return refuse(
      401,
      "E_AUTH_REQUIRED",
      "an OAuth access token is required (Authorization: Bearer …)",
      oauth.challenge(),
    );
  }
  const outcome = await oauth.authenticate(bearer);
  if (outcome.ok) return outcome.identity;
  return refuse(
    outcome.status,
    outcome.code,
    outcome.description,
    oauth.challenge({ error: outcome.error, description: outcome.description }),
  );
}
