import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The checks a request to the dashboard passes before anything reads it: the Host header (a page of another
 * site reaching a loopback dashboard by DNS rebinding names its own host), the Origin of every POST (a form on
 * another origin, even one of the same site such as another port of 127.0.0.1, which SameSite=Strict does not
 * stop), and the comparisons of secrets, made in constant time. Pure.
 */

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** `host:port` lowercased; a Host without a port means 80 (plain HTTP, which is all the dashboard speaks). */
export function normalizeHost(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith("[")) return host.includes("]:") ? host : `${host}:80`;
  return host.includes(":") ? host : `${host}:80`;
}

/** The Host values accepted: the bound address with the port, and the loopback names when bound to loopback. */
export function acceptedHosts(boundHost: string, port: number): Set<string> {
  const bound = bracketed(boundHost.toLowerCase());
  const out = new Set([`${bound}:${port}`]);
  if (LOOPBACK.includes(bound)) for (const name of LOOPBACK) out.add(`${name}:${port}`);
  return out;
}

export function hostAccepted(header: string | undefined, hosts: ReadonlySet<string>): boolean {
  return header !== undefined && header !== "" && hosts.has(normalizeHost(header));
}

/** True for `http://<an accepted host>` exactly (no path, no credentials); `null` and other schemes are not. */
export function isOwnOrigin(origin: string, hosts: ReadonlySet<string>): boolean {
  const m = /^http:\/\/([^/?#@\s]+)$/i.exec(origin.trim().replace(/\/+$/, ""));
  return m !== null && hosts.has(normalizeHost(m[1]!));
}

/**
 * A POST is from the dashboard's own pages when its Origin names the dashboard, or, for a browser that sent
 * none, its Referer does. Neither header: refused (a browser form always sends one of them under the
 * dashboard's `Referrer-Policy: same-origin`; a script outside a browser can fake both, and is stopped by the
 * session cookie and the CSRF token instead).
 */
export function sameOriginPost(
  headers: { origin?: string | undefined; referer?: string | undefined },
  hosts: ReadonlySet<string>,
): boolean {
  if (headers.origin !== undefined) return isOwnOrigin(headers.origin, hosts);
  if (headers.referer === undefined) return false;
  let referer: URL;
  try {
    referer = new URL(headers.referer);
  } catch {
    return false;
  }
  return referer.username === "" && referer.password === "" && isOwnOrigin(referer.origin, hosts);
}

/**
 * Equal secrets, compared without an early exit: both sides are hashed first, so neither the length nor the
 * position of the first difference shows in the time taken.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/** The cookies of a `Cookie` header; the first of a repeated name wins (later ones may be planted). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

/** An `application/x-www-form-urlencoded` body (`get` gives a repeated field's first value). */
export function parseForm(body: string): URLSearchParams {
  return new URLSearchParams(body);
}
