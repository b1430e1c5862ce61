import type { JWTPayload } from "jose";
import type { ClaimMatch } from "../engine/model/claims.js";
import type { AccessTokens } from "./accessTokens.js";
import { matchPrincipal, scopesOf } from "./principals.js";

/**
 * toolgate as an OAuth 2.1 resource server (the MCP authorization spec): it publishes its protected
 * resource metadata (RFC 9728) naming the authorization servers it trusts, and answers a request without a
 * valid access token with 401 and a `WWW-Authenticate` challenge that points there, or 403 when the token
 * lacks a scope or maps to no principal. It never passes a client's token on to a server.
 */

export interface OAuthSettings {
  issuers: readonly string[];
  /** This resource's identifier (the public URL of /mcp); a function: with port 0 it is known once listening. */
  audience: () => string;
  /** Scopes every token must carry (`--oauth-scope`), also advertised in the metadata and challenges. */
  scopes: readonly string[];
}

export type AuthCode =
  "E_AUTH_REQUIRED" | "E_AUTH_TOKEN" | "E_AUTH_SCOPE" | "E_AUTH_PRINCIPAL" | "E_AUTH_USE";

export type AuthOutcome<T> =
  | {
      ok: true;
      identity: T;
      subject: string;
      /** When the token expires (its `exp`, in ms): how long it may stand for its principal. */
      expiresAt: number;
    }
  | {
      ok: false;
      status: 401 | 403;
      code: AuthCode;
      error: "invalid_token" | "insufficient_scope";
      description: string;
    };

/** RFC 9728 §3.1: the metadata of `https://h/mcp` is at `https://h/.well-known/oauth-protected-resource/mcp`. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

export function protectedResourceMetadata(settings: OAuthSettings): Record<string, unknown> {
  return {
    resource: settings.audience(),
    authorization_servers: [...settings.issuers],
    ...(settings.scopes.length === 0 ? {} : { scopes_supported: [...settings.scopes] }),
    bearer_methods_supported: ["header"],
    resource_name: "toolgate MCP gateway",
  };
}

/** The `WWW-Authenticate` value: where the metadata is, the scopes, and what was wrong with the token. */
export function challenge(settings: OAuthSettings, problem?: { error: string; description: string }): string {
  const parts = [`Bearer resource_metadata="${quoted(metadataUrl(settings.audience()))}"`];
  if (settings.scopes.length > 0) parts.push(`scope="${quoted(settings.scopes.join(" "))}"`);
  if (problem !== undefined) {
    // Bounded: a description echoes parts of the token, and clients cap the size of a response header.
    const description = [...problem.description];
    const cut = description.length > 500 ? `${description.slice(0, 500).join("")}...` : problem.description;
    parts.push(`error="${problem.error}"`, `error_description="${quoted(cut)}"`);
  }
  return parts.join(", ");
}

/**
 * A quoted-string of RFC 9110 that any HTTP stack can carry: quote and backslash escaped, and every
 * character outside printable ASCII (control characters, and anything non-ASCII a token's claims or header
 * may carry, which Node refuses in a header) written as the text `\uXXXX` (its backslash escaped in turn),
 * so the challenge is never dropped and never breaks out of its quotes.
 */
function quoted(text: string): string {
  return text
    .replace(/[^\u0020-\u007e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replace(/[\\"]/g, "\\$&");
}

export interface PrincipalRule {
  label: string;
  claims: ClaimMatch;
}

/**
 * Checks a bearer token: valid (AccessTokens), with every required scope, and mapped to a principal (the
 * first entry of `principals`, the entries admitted at this door, whose claims match). `identityOf` turns
 * the entry, the token's issuer and its subject into the identity the gateway serves. A token that only an
 * entry of the other door (`elsewhere`: the dashboard's operators at /mcp, or the reverse) matches is
 * refused with E_AUTH_USE, saying so.
 */
export async function authenticate<E extends PrincipalRule, T>(
  token: string,
  settings: OAuthSettings,
  tokens: AccessTokens,
  principals: readonly E[],
  identityOf: (entry: E, issuer: string, subject: string) => T,
  elsewhere: readonly PrincipalRule[] = [],
): Promise<AuthOutcome<T>> {
  const checked = await tokens.check(token);
  if (!checked.ok) {
    return {
      ok: false,
      status: 401,
      code: "E_AUTH_TOKEN",
      error: "invalid_token",
      description: checked.description,
    };
  }
  const claims: JWTPayload = checked.claims;
  const have = scopesOf(claims);
  const missing = settings.scopes.filter((s) => !have.has(s));
  if (missing.length > 0) {
    return {
      ok: false,
      status: 403,
      code: "E_AUTH_SCOPE",
      error: "insufficient_scope",
      description: `the access token lacks the scope ${missing.join(" ")}`,
    };
  }
  const entry = matchPrincipal(principals, claims);
  const subject = typeof claims.sub === "string" ? claims.sub : "";
  if (entry === null && matchPrincipal(elsewhere, claims) !== null) {
    return {
      ok: false,
      status: 403,
      code: "E_AUTH_USE",
      error: "insufficient_scope",
      description: `the token's principal (subject ${JSON.stringify(subject)}) may not use this (its tokens-file entry's use: does not list it)`,
    };
  }
  if (entry === null) {
    return {
      ok: false,
      status: 403,
      code: "E_AUTH_PRINCIPAL",
      error: "insufficient_scope",
      description: `no principal of this gateway matches the token (subject ${JSON.stringify(subject)}); ask its operator to map it in the tokens file`,
    };
  }
  const expiresAt = typeof claims.exp === "number" ? claims.exp * 1000 : 0;
  return { ok: true, identity: identityOf(entry, checked.claims.iss, subject), subject, expiresAt };
}
