/**
 * The access token each OAuth principal last brought, verified, for the token exchange (RFC 8693) with
 * which toolgate reaches a server as that user: the `subject_token`. Set by /mcp's resource server for
 * every request it admits, before the request is served, so the token at hand is the newest that principal
 * showed. Kept in memory only, by the principal's key, until it expires; never written anywhere (no log, no
 * audit event, no error message holds it), and never passed on as it is.
 */
export class SubjectTokens {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();
  private static readonly MAX = 10_000;

  constructor(private readonly now: () => number = Date.now) {}

  /** `expiresAt`: the token's `exp` in ms (it was checked to be in the future). */
  remember(principalKey: string, token: string, expiresAt: number): void {
    if (!this.tokens.has(principalKey) && this.tokens.size >= SubjectTokens.MAX) this.sweep();
    // Still full of live tokens: the oldest entry goes (Map order is insertion order).
    if (!this.tokens.has(principalKey) && this.tokens.size >= SubjectTokens.MAX)
      this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.delete(principalKey);
    this.tokens.set(principalKey, { token, expiresAt });
  }

  /** The principal's current token; null when it brought none, or the one it brought has expired. */
  current(principalKey: string): string | null {
    const found = this.tokens.get(principalKey);
    if (found === undefined) return null;
    if (found.expiresAt <= this.now()) {
      this.tokens.delete(principalKey);
      return null;
    }
    return found.token;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, { expiresAt }] of this.tokens) if (expiresAt <= now) this.tokens.delete(key);
  }
}
