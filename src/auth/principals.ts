import type { JWTPayload } from "jose";
import type { ClaimMatch } from "../engine/model/claims.js";

export type { ClaimMatch };

/**
 * Which principal an OAuth access token is: the first entry of the principals (tokens) file whose every
 * condition holds for the token's claims. Pure.
 */

/**
 * The token's scopes: `scope` and `scp` each as issuers write them, a space-separated string (RFC 9068,
 * Entra ID's `scp`) or a list (Okta's `scp`), one scope per element. Scope tokens hold no spaces (RFC 6749
 * §3.3), so splitting a string is exact.
 */
export function scopesOf(claims: JWTPayload): Set<string> {
  const out = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    const items = typeof value === "string" ? value.split(" ") : Array.isArray(value) ? value : [];
    for (const s of items) if (typeof s === "string" && s !== "") out.add(s);
  }
  return out;
}

/** A list claim (`groups`) element by element, never split: a group's name may hold spaces. */
function listClaim(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function claimsMatch(match: ClaimMatch, claims: JWTPayload): boolean {
  if (match.iss !== undefined && claims.iss !== match.iss) return false;
  if (match.sub !== undefined && claims.sub !== match.sub) return false;
  if (match.client_id !== undefined) {
    const client = typeof claims.client_id === "string" ? claims.client_id : claims.azp;
    if (client !== match.client_id) return false;
  }
  if (match.scope !== undefined) {
    const scopes = scopesOf(claims);
    if (!match.scope.every((s) => scopes.has(s))) return false;
  }
  if (match.groups !== undefined) {
    const groups = new Set(listClaim(claims.groups));
    if (!match.groups.every((g) => groups.has(g))) return false;
  }
  return true;
}

export function matchPrincipal<E extends { claims: ClaimMatch }>(
  entries: readonly E[],
  claims: JWTPayload,
): E | null {
  return entries.find((e) => claimsMatch(e.claims, claims)) ?? null;
}
