import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The checks every HTTP request to `toolgate serve --http` passes before anything else reads it: the Host
 * header against the names the server answers to and the Origin header against the allowed origins (so a web
 * page cannot reach a local gateway by DNS rebinding), then the bearer token. Pure.
 */

/** `host:port`, lowercased; a Host without a port means port 80 (plain HTTP). */
export function normalizeHost(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith("[")) return host.includes("]:") ? host : `${host}:80`;
  return host.includes(":") ? host : `${host}:80`;
}

function hostPart(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * The Host values accepted: the bound address with the port, `localhost` and `127.0.0.1` and `[::1]` when
 * bound to a loopback address, and every `--allowed-host` (with our port when it names none).
 */
export function allowedHostSet(boundHost: string, port: number, extra: readonly string[]): Set<string> {
  const out = new Set<string>();
  const add = (host: string): void => void out.add(`${hostPart(host).toLowerCase()}:${port}`);
  add(boundHost);
  if (LOOPBACK.has(boundHost.toLowerCase())) for (const name of LOOPBACK) add(name);
  for (const entry of extra) {
    const e = entry.trim().toLowerCase();
    const hasPort = e.startsWith("[") ? e.includes("]:") : e.includes(":");
    out.add(hasPort ? e : `${e}:${port}`);
  }
  return out;
}

export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  return header !== undefined && header !== "" && allowed.has(normalizeHost(header));
}

/** `scheme://host[:port]`, lowercased, without a trailing slash. */
export function normalizeOrigin(value: string): string {
  return value.trim().toLowerCase().replace(/\/+$/, "");
}

/** A request without Origin (not from a browser) passes; one with an Origin must be listed. */
export function originAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  return header === undefined || allowed.has(normalizeOrigin(header));
}

/**
 * An Origin naming the gateway itself: `http://` and a Host it accepts (`http://localhost:PORT`), as a page
 * the gateway serves sends. A rebinding page cannot send it: its Host would have to be accepted too.
 */
export function isOwnOrigin(header: string | undefined, hosts: ReadonlySet<string>): boolean {
  if (header === undefined) return false;
  const m = /^http:\/\/([^/?#@\s]+)$/i.exec(normalizeOrigin(header));
  return m !== null && hosts.has(normalizeHost(m[1]!));
}

export function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * The accepted bearer tokens, kept as SHA-256 digests. A presented token is hashed and compared with every
 * entry by `timingSafeEqual` over equal-length digests, without stopping at a match, so neither the time
 * taken nor the entry order tells anything about the tokens.
 */
export class BearerTokens<T extends { digest: Buffer }> {
  constructor(private readonly entries: readonly T[]) {
    for (const e of entries) {
      if (e.digest.length !== 32) throw new Error("token digests must be 32-byte SHA-256 values");
    }
  }

  match(authorization: string | undefined): T | null {
    if (authorization === undefined) return null;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (m === null) return null;
    const digest = sha256(m[1]!);
    let found: T | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.digest) && found === null) found = entry;
    }
    return found;
  }
}
