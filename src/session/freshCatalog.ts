import { upstreamAuthCodeOf, type UpstreamAuthCode } from "../engine/errors.js";

const MAX_ATTEMPTS = 3;

/**
 * A server's tool catalog as toolgate itself fetched it, kept as fresh as the server says it is: every
 * `notifications/tools/list_changed` marks it stale, and decisions wait (`ensureFresh`) for a fetch that
 * started after the last one. A failed fetch leaves no catalog at all rather than an old one that may no
 * longer be true. One fetch at a time; callers during a fetch share it. Shared by `wrap` (one server,
 * paged over the proxy's private requests) and `serve` (one catalog per upstream link).
 */
export class FreshCatalog<S> {
  private snapshot: S | null = null;
  private failure = "the catalog has not been fetched yet";
  /** Set when the last fetch failed for the server's credentials (see upstreamAuthCodeOf). */
  private failureCode: UpstreamAuthCode | null = null;
  /** Bumped by every list_changed. */
  private epoch = 0;
  /** The epoch at which the current snapshot's fetch started. */
  private fetchedEpoch = -1;
  private inFlight: Promise<void> | null = null;
  /** A fixed snapshot (a server without the tools capability): nothing to fetch, never stale. */
  private fixed = false;

  constructor(
    private readonly fetch: () => Promise<S>,
    private readonly log: (line: string) => void,
    /** Told about every snapshot fetched (e.g. to warn about whitelist patterns that match none of it). */
    private readonly onFetched?: (snapshot: S) => void,
  ) {}

  /** Use this snapshot for good (the server declared no tools capability). */
  fix(snapshot: S): void {
    this.fixed = true;
    this.snapshot = snapshot;
    this.fetchedEpoch = this.epoch;
  }

  markStale(): void {
    if (!this.fixed) this.epoch++;
  }

  get fresh(): boolean {
    return this.snapshot !== null && this.fetchedEpoch === this.epoch;
  }

  /** The snapshot, or why there is none to decide with. */
  current(): { ok: true; snapshot: S } | { ok: false; reason: string; code?: UpstreamAuthCode } {
    if (this.snapshot !== null) return { ok: true, snapshot: this.snapshot };
    return this.failureCode === null
      ? { ok: false, reason: this.failure }
      : { ok: false, reason: this.failure, code: this.failureCode };
  }

  /** Refetches until the catalog is at least as new as the last list_changed (bounded), or a fetch fails. */
  async ensureFresh(): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !this.fresh; attempt++) {
      await this.refresh();
      if (this.snapshot === null) return;
    }
  }

  refresh(): Promise<void> {
    if (this.fixed) return Promise.resolve();
    if (this.inFlight !== null) return this.inFlight;
    const epoch = this.epoch;
    this.inFlight = this.fetch()
      .then(
        (snapshot) => {
          this.snapshot = snapshot;
          this.failureCode = null;
          this.fetchedEpoch = epoch;
          try {
            this.onFetched?.(snapshot);
          } catch (error) {
            this.log(`catalog listener failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        },
        (error: unknown) => {
          this.snapshot = null;
          this.failureCode = upstreamAuthCodeOf(error);
          this.failure = `could not fetch the server's tool catalog: ${error instanceof Error ? error.message : String(error)}`;
          this.log(this.failure);
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }
}
