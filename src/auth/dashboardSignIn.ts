import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { CachedIssuerMetadata } from "./issuerMetadata.js";

/**
 * Signing in to the dashboard with the organisation's identity provider: the authorization code flow with
 * PKCE (S256) as a public client, for this gateway's resource (RFC 8707), so the access token that comes
 * back is one the gateway checks like any other.
 *
 * An attempt keeps no state here while it runs, so no number of attempts started by others can push a
 * person's attempt out (a bounded table of pending attempts could be filled by anyone who can reach
 * /ui/oauth/start). What binds it is in the browser's cookie: the time it started and a random value.
 * `state` is an HMAC of that cookie under a key of this process, so a callback is accepted only with the
 * cookie of the browser that started it and only within ten minutes; the PKCE verifier is another HMAC of
 * the cookie, made again at the callback and sent only to the token endpoint, never through the browser.
 *
 * Each attempt is used once: the `state` of a callback is remembered as spent until the attempt would
 * have expired anyway (see SpentStates).
 */
export interface SignInAttempt {
  /** Where to send the browser. */
  location: string;
  /** The cookie value that must come back with the callback. */
  nonce: string;
}

const TTL_MS = 10 * 60_000;

export interface DashboardSignInOptions {
  issuer: string;
  clientId: string;
  resource: () => string;
  scope?: string;
  fetch?: typeof fetch;
  now?: () => number;
}

export class DashboardSignIn {
  /** This process's own: attempts started before a restart end with it. */
  private readonly key = randomBytes(32);
  private readonly spent: SpentStates;
  private readonly metadata: CachedIssuerMetadata;

  constructor(private readonly options: DashboardSignInOptions) {
    this.spent = new SpentStates(this.now);
    // Cached, with a cool-down after a failure: a flood of attempts does not become a flood of fetches.
    this.metadata = new CachedIssuerMetadata(options.issuer, {
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  private readonly now = (): number => (this.options.now ?? Date.now)();

  async start(redirectUri: string): Promise<SignInAttempt> {
    const metadata = await this.metadata.get();
    if (metadata.authorization_endpoint === undefined) {
      throw new Error(`issuer ${this.options.issuer} publishes no authorization_endpoint`);
    }
    const nonce = `${this.now().toString(36)}.${randomBytes(24).toString("base64url")}`;
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      state: this.mac("state", nonce),
      code_challenge: createHash("sha256").update(this.mac("verifier", nonce)).digest("base64url"),
      code_challenge_method: "S256",
      resource: this.options.resource(),
      ...(this.options.scope === undefined ? {} : { scope: this.options.scope }),
    }).toString();
    return { location: url.toString(), nonce };
  }

  /** The access token for a callback, or why there is none (a stale, forged or spent state, a refused code). */
  async finish(
    params: URLSearchParams,
    nonce: string | undefined,
    redirectUri: string,
  ): Promise<{ token: string } | { problem: string }> {
    const stale = { problem: "this sign-in was not started here, or it is too old: start again" };
    const startedAt = nonce === undefined ? NaN : parseInt(nonce.split(".")[0]!, 36);
    const state = params.get("state") ?? "";
    if (nonce === undefined || !sameText(state, this.mac("state", nonce))) return stale;
    const now = this.now();
    if (!(startedAt <= now && now - startedAt < TTL_MS)) return stale;
    // Spent before anything else happens: a second callback with the same state fails even while the
    // first one is still talking to the provider.
    if (!this.spent.spend(state, startedAt + TTL_MS)) {
      return { problem: "this sign-in was already used: start again" };
    }
    const error = params.get("error");
    if (error !== null)
      return { problem: `the identity provider said ${error}: ${params.get("error_description") ?? ""}` };
    const code = params.get("code");
    if (code === null) return { problem: "the identity provider sent no code" };
    const metadata = await this.metadata.get();
    if (metadata.token_endpoint === undefined)
      return { problem: `issuer ${this.options.issuer} publishes no token_endpoint` };
    const answer = await (this.options.fetch ?? fetch)(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: this.options.clientId,
        code_verifier: this.mac("verifier", nonce),
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

  /** base64url of 32 bytes: as a PKCE verifier, 43 characters of the allowed set (RFC 7636 §4.1). */
  private mac(purpose: "state" | "verifier", nonce: string): string {
    return createHmac("sha256", this.key).update(`${purpose}\u0000${nonce}`).digest("base64url");
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The states of callbacks already taken, each until its attempt would have expired.
 *
 * Why bounded, and why eviction is safe here. An entry goes in only after a valid HMAC, so it needs a cookie
 * this process made (/ui/oauth/start) and the callback for it: one full round per entry. That costs an
 * attacker two cheap requests, so it is no bound by itself, and the table is capped (10,000 entries, about
 * a megabyte); when it is full, expired entries go, then the one spent first. What an evicted entry loses
 * is only the refusal of a second use of a callback that was already taken. Using it again needs that
 * browser's cookie (HttpOnly, cleared by the first callback) and an authorization code for that attempt's
 * PKCE challenge; the code that came back is redeemed by the provider once (OAuth 2.1 §4.1.3), so a replay
 * gets no token. Attempts in progress are not in this table at all: no flood of it can end one, which is
 * the property that matters, and it holds however many attempts others make.
 */
class SpentStates {
  private readonly until = new Map<string, number>();
  private static readonly MAX = 10_000;

  constructor(private readonly now: () => number) {}

  /** `false` when the state was spent already. */
  spend(state: string, expires: number): boolean {
    const now = this.now();
    const seen = this.until.get(state);
    if (seen !== undefined && seen > now) return false;
    if (this.until.size >= SpentStates.MAX) {
      for (const [s, t] of this.until) if (t <= now) this.until.delete(s);
      // Still full: the one spent first goes (Map order is insertion order).
      while (this.until.size >= SpentStates.MAX) this.until.delete(this.until.keys().next().value!);
    }
    this.until.set(state, expires);
    return true;
  }
}
