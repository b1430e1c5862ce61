/**
 * One access token toolgate holds for reaching a server (an exchanged token of one principal, or the
 * gateway's own client-credentials token): obtained when first needed, used until shortly before it
 * expires, then obtained again. Whoever asks at the same moment shares one request to the token endpoint.
 *
 * "Shortly before": 30 s, or half the token's lifetime when it lives less than a minute (a token of 20 s is
 * used for 10 s, not never); a token whose lifetime is not said is used for 60 s. A token the server
 * refused (401) is dropped at once, so the next request obtains another.
 */

export interface IssuedToken {
  token: string;
  /** Seconds it is valid for; null when the token endpoint did not say and the token does not tell. */
  lifetimeS: number | null;
}

export const REFRESH_MARGIN_MS = 30_000;
const UNKNOWN_LIFETIME_MS = 60_000;

export class CachedToken {
  private held: { token: string; usableUntil: number } | null = null;
  private pending: Promise<string> | null = null;
  /** The token held before this one: an answer in flight may still echo it (scrubbing). */
  private previous: string | null = null;

  constructor(
    private readonly obtain: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<string> {
    if (this.held !== null && this.now() < this.held.usableUntil) return Promise.resolve(this.held.token);
    if (this.pending !== null) return this.pending;
    const started = this.now();
    const pending = this.obtain().then((issued) => {
      this.keep(issued, started);
      return issued.token;
    });
    this.pending = pending;
    const settled = (): void => {
      if (this.pending === pending) this.pending = null;
    };
    pending.then(settled, settled);
    return pending;
  }

  /** Forgets `token` (the server refused it): the next `get` obtains another. Another token is kept. */
  drop(token: string): void {
    if (this.held?.token === token) {
      this.previous = token;
      this.held = null;
    }
  }

  /** The tokens held now (current and the one before): what must never be written anywhere. */
  secrets(): string[] {
    return [this.held?.token, this.previous].filter((t): t is string => t !== undefined && t !== null);
  }

  /** Whether a token is held and usable now (not to be obtained first). */
  get fresh(): boolean {
    return this.held !== null && this.now() < this.held.usableUntil;
  }

  private keep(issued: IssuedToken, started: number): void {
    if (this.held !== null && this.held.token !== issued.token) this.previous = this.held.token;
    const lifetimeMs = issued.lifetimeS === null ? UNKNOWN_LIFETIME_MS : issued.lifetimeS * 1000;
    const margin = issued.lifetimeS === null ? 0 : Math.min(REFRESH_MARGIN_MS, Math.floor(lifetimeMs / 2));
    // Counted from when it was asked for: the time the answer took is already gone from its lifetime.
    this.held = { token: issued.token, usableUntil: started + lifetimeMs - margin };
  }
}
