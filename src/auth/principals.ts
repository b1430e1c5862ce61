import type { JWTPayload } from "jose";
import type { ClaimMatch } from "../engine/model/claims.js";

export type { ClaimMatch };

/**
 * Which principal an OAuth access token is: the first entry of the principals (tokens) file whose every
 * condition holds for the token's claims. Pure.
 */

export function scopesOf(claims: JWTPayload): Set<string> {
  const out = new Set<string>();
  if (typeof claims.scope === "string") for (const s of claims.scope.split(" ")) if (s !== "") out.add(s);
  if (Array.isArray(claims.scp)) for (const s of claims.scp) if (typeof s === "string") out.add(s);
  return out;
}

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
