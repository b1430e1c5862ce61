import type { ServerResponse } from "node:http";

/**
 * Drain for the HTTP listener: once draining, new MCP requests are refused (503) while the requests in
 * flight run to their end, for at most the drain timeout. Long-lived streams (a modern `subscriptions/listen`,
 * a GET event stream) are not waited for: they have no end of their own, and closing ends them.
 */
export class DrainGate {
  private draining = false;
  private inFlight = 0;
  private idle: Array<() => void> = [];

  get isDraining(): boolean {
    return this.draining;
  }

  /** A request whose answer goes out on `res`: in flight until the response closes. */
  track(res: ServerResponse): void {
    this.inFlight++;
    res.once("close", () => {
      this.inFlight--;
      if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    });
  }

  /** Starts draining; resolves when nothing is in flight, or after `timeoutMs` (with what is left). */
  drain(timeoutMs: number): Promise<{ unfinished: number }> {
    this.draining = true;
    if (this.inFlight === 0) return Promise.resolve({ unfinished: 0 });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ unfinished: this.inFlight }), timeoutMs);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve({ unfinished: 0 });
      });
    });
  }
}
