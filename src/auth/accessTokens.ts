import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from "jose";
import { fetchIssuerMetadata } from "./issuerMetadata.js";

/**
 * OAuth 2.1 access tokens as an MCP resource server checks them (the MCP authorization spec, RFC 9068,
 * RFC 8707): a JWT signed with an asymmetric key the issuer publishes (its JWKS, found through its
 * metadata, cached by `jose` and fetched again, with a cooldown, for an unknown `kid`), from one of the
 * configured issuers, for this resource (`aud`), current (`exp`, `nbf`, with a small skew). `alg: none`
 * and symmetric algorithms are refused: a public key must never verify an HMAC. The token itself is never
 * logged, recorded or passed on.
 */

/** Asymmetric JWS algorithms only. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const CLOCK_SKEW_S = 30;

export interface AccessTokenOptions {
  /** Issuer identifiers (URLs) whose tokens are accepted. */
  issuers: readonly string[];
  /** This resource's identifier: the `aud` a token must name (the public URL of /mcp). */
  audience: () => string;
  /** Bound on fetching an issuer's metadata or keys. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export type TokenCheck =
  { ok: true; claims: JWTPayload & { iss: string; sub?: string } } | { ok: false; description: string };

export class AccessTokens {
  private readonly keys = new Map<string, Promise<ReturnType<typeof createRemoteJWKSet>>>();

  constructor(private readonly options: AccessTokenOptions) {}

  async check(token: string): Promise<TokenCheck> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      return { ok: false, description: "the access token is not a JWT" };
    }
    const issuer = typeof unverified.iss === "string" ? unverified.iss : undefined;
    if (issuer === undefined || !this.options.issuers.includes(issuer)) {
      return {
        ok: false,
        description: `the access token's issuer ${JSON.stringify(issuer ?? null)} is not one this gateway trusts`,
      };
    }
    let keys;
    try {
      keys = await this.keysOf(issuer);
    } catch (error) {
      this.keys.delete(issuer);
      return {
        ok: false,
        description: `the keys of issuer ${issuer} cannot be fetched: ${messageOf(error)}`,
      };
    }
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
      return { ok: false, description: describe(error, this.options.audience()) };
    }
  }

  /** The issuer's published keys: its metadata (OpenID, else OAuth) names `jwks_uri`. */
  private keysOf(issuer: string): Promise<ReturnType<typeof createRemoteJWKSet>> {
    let found = this.keys.get(issuer);
    if (found === undefined) {
      found = this.discover(issuer).then((jwksUri) =>
        createRemoteJWKSet(new URL(jwksUri), {
          timeoutDuration: this.options.timeoutMs ?? 5000,
          cooldownDuration: 30_000,
          cacheMaxAge: 600_000,
        }),
      );
      this.keys.set(issuer, found);
    }
    return found;
  }

  private async discover(issuer: string): Promise<string> {
    return (await fetchIssuerMetadata(issuer, this.options.timeoutMs ?? 5000, this.options.fetch ?? fetch))
      .jwks_uri;
  }
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
