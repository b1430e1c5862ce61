import { fetchBoundedJson } from "./boundedFetch.js";

/**
 * An authorization server's metadata (OpenID discovery, else RFC 8414), fetched from its issuer URL. The
 * metadata must name the issuer it was fetched for (RFC 8414 §3.3): a document for another issuer is
 * ignored, never trusted. Each document is read with a bound on time and on size (256 KiB: real ones are a
 * few KiB).
 */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

export const METADATA_MAX_BYTES = 256 * 1024;

export async function fetchIssuerMetadata(
  issuer: string,
  timeoutMs = 5000,
  doFetch: typeof fetch = fetch,
): Promise<IssuerMetadata> {
  const base = issuer.replace(/\/$/, "");
  const problems: string[] = [];
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    let metadata: Record<string, unknown>;
    try {
      const json = await fetchBoundedJson(base + path, {
        maxBytes: METADATA_MAX_BYTES,
        timeoutMs,
        fetch: doFetch,
      });
      if (typeof json !== "object" || json === null) throw new Error(`${base + path} is not a JSON object`);
      metadata = json as Record<string, unknown>;
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    if (metadata.issuer !== issuer || typeof metadata.jwks_uri !== "string") {
      problems.push(`${base + path} names another issuer or no jwks_uri`);
      continue;
    }
    const text = (key: string): string | undefined =>
      typeof metadata[key] === "string" ? (metadata[key] as string) : undefined;
    const authorization = text("authorization_endpoint");
    const token = text("token_endpoint");
    return {
      issuer,
      jwks_uri: metadata.jwks_uri,
      ...(authorization === undefined ? {} : { authorization_endpoint: authorization }),
      ...(token === undefined ? {} : { token_endpoint: token }),
    };
  }
  throw new Error(`no metadata naming issuer ${issuer} with a jwks_uri (${problems.join("; ")})`);
}

/**
 * One issuer's metadata, fetched once and kept for `maxAgeMs`; a failed fetch is remembered for
 * `coolDownMs`, during which asking again fails at once without fetching. Whatever asks, and however
 * often (a flood of sign-in attempts), the issuer sees at most one fetch per cool-down while it fails.
 */
export class CachedIssuerMetadata {
  private value: IssuerMetadata | undefined;
  private fetchedAt = 0;
  private failure: { message: string; at: number } | undefined;
  private pending: Promise<IssuerMetadata> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly options: {
      timeoutMs?: number;
      coolDownMs?: number;
      maxAgeMs?: number;
      fetch?: typeof fetch;
      now?: () => number;
    } = {},
  ) {}

  get(): Promise<IssuerMetadata> {
    const now = (this.options.now ?? Date.now)();
    if (this.value !== undefined && now - this.fetchedAt < (this.options.maxAgeMs ?? 600_000))
      return Promise.resolve(this.value);
    if (this.pending !== undefined) return this.pending;
    if (this.failure !== undefined && now - this.failure.at < (this.options.coolDownMs ?? 30_000))
      return Promise.reject(new Error(this.failure.message));
    this.pending = fetchIssuerMetadata(this.issuer, this.options.timeoutMs ?? 5000, this.options.fetch)
      .then(
        (metadata) => {
          this.value = metadata;
          this.fetchedAt = now;
          this.failure = undefined;
          return metadata;
        },
        (error: unknown) => {
          this.value = undefined;
          this.failure = { message: error instanceof Error ? error.message : String(error), at: now };
          throw error;
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
