import { createHash, randomBytes } from "node:crypto";
import { fetchIssuerMetadata } from "./issuerMetadata.js";

/**
 * Signing in to the dashboard with the organisation's identity provider: the authorization code flow with
 * PKCE (S256) as a public client, for this gateway's resource (RFC 8707), so the access token that comes
 * back is one the gateway checks like any other. Each attempt is bound to the browser that started it by
 * `state` and a cookie holding a random nonce; attempts are bounded (at most 64, ten minutes each).
 */
export interface SignInAttempt {
  /** Where to send the browser. */
  location: string;
  /** The cookie value that must come back with the callback. */
  nonce: string;
}

interface Pending {
  nonce: string;
  verifier: string;
  issuer: string;
  until: number;
}

const MAX_PENDING = 64;
const TTL_MS = 10 * 60_000;

export class DashboardSignIn {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly options: { issuer: string; clientId: string; resource: () => string; scope?: string },
  ) {}

  async start(redirectUri: string): Promise<SignInAttempt> {
    const metadata = await fetchIssuerMetadata(this.options.issuer);
    if (metadata.authorization_endpoint === undefined) {
      throw new Error(`issuer ${this.options.issuer} publishes no authorization_endpoint`);
    }
    const now = Date.now();
    for (const [state, p] of this.pending) if (p.until <= now) this.pending.delete(state);
    while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const state = randomBytes(24).toString("base64url");
    const nonce = randomBytes(24).toString("base64url");
    const verifier = randomBytes(32).toString("base64url");
    this.pending.set(state, { nonce, verifier, issuer: this.options.issuer, until: now + TTL_MS });
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      state,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: this.options.resource(),
      ...(this.options.scope === undefined ? {} : { scope: this.options.scope }),
    }).toString();
    return { location: url.toString(), nonce };
  }

  /** The access token for a callback, or why there is none (a stale or forged state, a refused code). */
  async finish(
    params: URLSearchParams,
    nonce: string | undefined,
    redirectUri: string,
  ): Promise<{ token: string } | { problem: string }> {
    const state = params.get("state") ?? "";
    const attempt = this.pending.get(state);
    // Single use, whatever comes of it.
    this.pending.delete(state);
    if (attempt === undefined || attempt.until <= Date.now() || nonce !== attempt.nonce) {
      return { problem: "this sign-in was not started here, or it is too old: start again" };
    }
    const error = params.get("error");
    if (error !== null)
      return { problem: `the identity provider said ${error}: ${params.get("error_description") ?? ""}` };
    const code = params.get("code");
    if (code === null) return { problem: "the identity provider sent no code" };
    const metadata = await fetchIssuerMetadata(attempt.issuer);
    if (metadata.token_endpoint === undefined)
      return { problem: `issuer ${attempt.issuer} publishes no token_endpoint` };
    const answer = await fetch(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: this.options.clientId,
        code_verifier: attempt.verifier,
        resource: this.options.resource(),
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (typeof body.access_token !== "string") {
      return {
        problem: `the identity provider gave no access token (${String(body.error ?? answer.status)})`,
      };
    }
    return { token: body.access_token };
  }
}
