import { createLocalJWKSet } from "jose";
import { fetchBoundedJson } from "./boundedFetch.js";
import { fetchIssuerMetadata } from "./issuerMetadata.js";

/**
 * The signing keys of the trusted issuers, fetched by toolgate itself (the issuer's metadata names its
 * `jwks_uri`) with bounds on time and size (1 MiB: a real key set is a few KiB), and checked by `jose`
 * from memory (createLocalJWKSet).
 *
 * At most one fetch per issuer per cool-down (30 s) unless the cached keys have simply grown old (10
 * minutes): a failed fetch is remembered and every token of that issuer is refused with its reason until
 * the cool-down has passed, and a token naming a `kid` the cached set lacks fetches again only once the
 * last fetch is a cool-down old. Concurrent requests share one fetch. So tokens naming a trusted issuer
 * that is down, slow or answers garbage (or keys it never published) cannot make toolgate fetch once per
 * request. Only configured issuers get here (AccessTokens checks `iss` first), so the map is bounded.
 *
 * Fail closed: keys older than their maximum age whose refresh failed are not used.
 */
export type KeySet = ReturnType<typeof createLocalJWKSet>;

export const JWKS_MAX_BYTES = 1024 * 1024;

export interface IssuerKeysOptions {
  timeoutMs?: number;
  coolDownMs?: number;
  maxAgeMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface Entry {
  issuer: string;
  keys?: KeySet;
  /** When the keys were fetched. */
  loadedAt: number;
  /** When the last fetch started, whatever came of it. */
  attemptAt: number;
  jwksUri?: string;
  failure?: string;
  pending?: Promise<void>;
}

export class IssuerKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: IssuerKeysOptions = {}) {}

  /** The issuer's keys, or an Error saying why there are none (the fetch that failed, and how). */
  async keysOf(issuer: string): Promise<KeySet> {
    const entry = this.entryOf(issuer);
    if (entry.pending !== undefined) await entry.pending;
    const now = this.now();
    if (entry.keys !== undefined && now - entry.loadedAt < this.maxAge()) return entry.keys;
    if (entry.failure === undefined || now - entry.attemptAt >= this.coolDown()) await this.load(entry);
    if (entry.keys !== undefined && this.now() - entry.loadedAt < this.maxAge()) return entry.keys;
    throw new Error(
      `${entry.failure ?? "no keys"} (fetched again no sooner than ${this.coolDown() / 1000} s after the last try)`,
    );
  }

  /**
   * After a token named a key the cached set lacks (the issuer may have rotated its keys): the keys fetched
   * again if the last fetch is a cool-down old, else `null` (the token is refused).
   */
  async refetched(issuer: string): Promise<KeySet | null> {
    const entry = this.entryOf(issuer);
    if (entry.pending !== undefined) {
      await entry.pending;
      return entry.keys ?? null;
    }
    if (this.now() - entry.attemptAt < this.coolDown()) return null;
    await this.load(entry);
    return entry.failure === undefined ? (entry.keys ?? null) : null;
  }

  private load(entry: Entry): Promise<void> {
    entry.pending ??= this.fetchKeys(entry).finally(() => {
      entry.pending = undefined;
    });
    return entry.pending;
  }

  private async fetchKeys(entry: Entry): Promise<void> {
    const at = this.now();
    entry.attemptAt = at;
    const timeoutMs = this.options.timeoutMs ?? 5000;
    try {
      entry.jwksUri ??= (await fetchIssuerMetadata(entry.issuer, timeoutMs, this.options.fetch)).jwks_uri;
      const jwks = await fetchBoundedJson(entry.jwksUri, {
        maxBytes: JWKS_MAX_BYTES,
        timeoutMs,
        ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
      });
      try {
        entry.keys = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
      } catch (error) {
        throw new Error(`${entry.jwksUri} is not a JSON Web Key Set`, { cause: error });
      }
      entry.loadedAt = at;
      entry.failure = undefined;
    } catch (error) {
      // Found again next time: the metadata may have moved the keys.
      entry.jwksUri = undefined;
      entry.failure = error instanceof Error ? error.message : String(error);
    }
  }

  private entryOf(issuer: string): Entry {
    let entry = this.entries.get(issuer);
    if (entry === undefined) {
      entry = { issuer, loadedAt: 0, attemptAt: -Infinity };
      this.entries.set(issuer, entry);
    }
    return entry;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private coolDown(): number {
    return this.options.coolDownMs ?? 30_000;
  }

  private maxAge(): number {
    return this.options.maxAgeMs ?? 600_000;
  }
}
