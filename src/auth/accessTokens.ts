import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from "jose";
import { IssuerKeys, type KeySet } from "./issuerKeys.js";

/**
 * OAuth 2.1 access tokens as an MCP resource server checks them (the MCP authorization spec, RFC 9068,
 * RFC 8707, RFC 8725): a JWT signed with an asymmetric key the issuer publishes (IssuerKeys: its JWKS,
 * found through its metadata, fetched with bounds and a cool-down), from one of the configured issuers,
 * typed as an access token or untyped, for this resource (`aud`), current (`exp`, `nbf`, with a small
 * skew). `alg: none` and symmetric algorithms are refused: a public key must never verify an HMAC. The
 * token itself is never logged, recorded or passed on.
 */

/** Asymmetric JWS algorithms only. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const CLOCK_SKEW_S = 30;

/**
 * The `typ` values of an access token (RFC 9068 §2.1: `at+jwt`, with or without `application/`), and the
 * generic `JWT` many issuers write (Keycloak, Entra ID). Media types compare case-insensitively (RFC 8725
 * §3.11). An explicit other type (an ID token's, a logout token's, an introspection answer's) is another
 * kind of JWT from the same issuer and key, and must not pass for an access token. No `typ` is accepted:
 * many issuers write none.
 */
const ACCESS_TOKEN_TYPES = new Set(["at+jwt", "jwt"]);

export interface AccessTokenOptions {
  /** Issuer identifiers (URLs) whose tokens are accepted. */
  issuers: readonly string[];
  /** This resource's identifier: the `aud` a token must name (the public URL of /mcp). */
  audience: () => string;
  /** Bound on fetching an issuer's metadata or keys. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The keys, when several checkers share them (and their cool-downs). */
  keys?: IssuerKeys;
}

export type TokenCheck =
  { ok: true; claims: JWTPayload & { iss: string; sub?: string } } | { ok: false; description: string };

export class AccessTokens {
  private readonly keys: IssuerKeys;

  constructor(private readonly options: AccessTokenOptions) {
    this.keys =
      options.keys ??
      new IssuerKeys({
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
  }

  async check(token: string): Promise<TokenCheck> {
    let unverified: JWTPayload;
    let header: Record<string, unknown>;
    try {
      unverified = decodeJwt(token);
      header = decodeProtectedHeader(token) as Record<string, unknown>;
    } catch {
      return { ok: false, description: "the access token is not a JWT" };
    }
    const issuer = typeof unverified.iss === "string" ? unverified.iss : undefined;
    if (issuer === undefined || !this.options.issuers.includes(issuer)) {
      return {
        ok: false,
        description: `the access token's issuer ${shown(issuer ?? null)} is not one this gateway trusts`,
      };
    }
    const typ = typProblem(header.typ);
    if (typ !== null) return { ok: false, description: typ };
    let keys: KeySet;
    try {
      keys = await this.keys.keysOf(issuer);
    } catch (error) {
      return {
        ok: false,
        description: `the keys of issuer ${issuer} cannot be fetched: ${messageOf(error)}`,
      };
    }
    let outcome = await this.verify(token, issuer, keys);
    if (!outcome.ok && outcome.unknownKey) {
      // A key the cached set lacks: the issuer may have rotated; fetched again at most once per cool-down.
      const fresh = await this.keys.refetched(issuer);
      if (fresh !== null) outcome = await this.verify(token, issuer, fresh);
    }
    return outcome.ok ? outcome : { ok: false, description: outcome.description };
  }

  private async verify(
    token: string,
    issuer: string,
    keys: KeySet,
  ): Promise<Extract<TokenCheck, { ok: true }> | { ok: false; description: string; unknownKey: boolean }> {
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: this.options.audience(),
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ["exp"],
      });
      return { ok: true, claims: payload as JWTPayload & { iss: string } };
    } catch (error) {
      return {
        ok: false,
        description: describe(error, this.options.audience()),
        unknownKey: error instanceof errors.JWKSNoMatchingKey,
      };
    }
  }
}

/** Why the header's `typ` is not an access token's, or `null` when it is one (or there is none). */
export function typProblem(typ: unknown): string | null {
  if (typ === undefined) return null;
  if (typeof typ !== "string") return "the token's typ header is not a string, so it is not an access token";
  const type = typ.toLowerCase().replace(/^application\//, "");
  if (ACCESS_TOKEN_TYPES.has(type)) return null;
  return `the token's typ ${shown(typ)} is not an access token's (at+jwt, application/at+jwt or JWT): send an access token for this resource, not an ID token or another kind of JWT`;
}

/** An untrusted value as a description shows it: quoted, and cut short (it ends up in a response header). */
function shown(value: string | null): string {
  if (value === null) return "null";
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

function describe(error: unknown, audience: string): string {
  if (error instanceof errors.JWTExpired) return "the access token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return "the access token is not valid yet";
    if (error.claim === "aud")
      return `the access token is not for this resource (its audience must be ${audience})`;
    return `the access token's '${error.claim}' claim is not accepted (${error.reason})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return "the access token's signing algorithm is not accepted (asymmetric algorithms only)";
  if (error instanceof errors.JWKSNoMatchingKey)
    return "the access token is signed with a key the issuer does not publish";
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "the access token's signature does not verify";
  return `the access token is not valid: ${messageOf(error)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
