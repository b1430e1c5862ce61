/**
 * What a gateway tells its operators about itself, as events from the places where things happen: the
 * session records decisions and call timings, the upstream links their states, the state store its errors.
 * The places hold only this interface; one implementation keeps Prometheus counters (promMetrics.ts), and
 * {@link NO_METRICS} keeps nothing (tests, `wrap` without `--metrics-port`). Nothing here decides anything.
 */

/** A decision as `toolgate_decisions_total` counts it: the audit log's `decision` (`allow`, `deny`, `hidden`, and in a dry run `would-deny`, `would-hide`). */
export type DecisionVerdict = "allow" | "deny" | "hidden" | "would-deny" | "would-hide";

/** How a server's connection is: connected, being connected (first start or after a failure), or down. */
export type UpstreamState = "up" | "starting" | "failed";

/** A session's protocol era: `legacy` (2025-11-25 and before, with sessions) or `modern` (2026-07-28). */
export type SessionEra = "legacy" | "modern";

/** What a reload came to (the reload itself is done elsewhere). */
export type ReloadResult = "applied" | "refused";

/** One connection to one server, as it reports itself; several may face one server (one per principal). */
export interface UpstreamWatch {
  state(state: UpstreamState, error?: string): void;
  /** A reconnection after the connection failed or dropped: the server is started (or reached) again. */
  restarted(): void;
  /** The server's catalog came in on this connection. */
  catalog(): void;
  /** The connection is closed for good (its session ended): it no longer counts. */
  closed(): void;
}

/** One live client session, counted until {@link SessionWatch.closed}. */
export interface SessionWatch {
  closed(): void;
}

export interface GatewayMetrics {
  /** One decision about a call, or one tool a list hid; `server` is `null` when the call named none. */
  decision(verdict: DecisionVerdict, code: string | null, server: string | null): void;
  /**
   * The time toolgate itself spent on one call, from its arrival until it was forwarded or answered
   * (deciding, counting, recording), never the time a person took to answer an approval question.
   */
  gateTime(server: string | null, seconds: number): void;
  /** The time a server took to answer one forwarded call. */
  upstreamTime(server: string | null, seconds: number): void;
  upstream(server: string): UpstreamWatch;
  session(era: SessionEra): SessionWatch;
  /** One operation of the state store that failed (the request that needed it was refused). */
  stateStoreError(): void;
  reload(result: ReloadResult): void;
  /** How many calls wait for a person's answer now: read when the metrics are read. */
  approvalsWaiting(read: () => number): void;
}

const NO_WATCH: UpstreamWatch & SessionWatch = {
  state: () => undefined,
  restarted: () => undefined,
  catalog: () => undefined,
  closed: () => undefined,
};

/** Keeps nothing: where no one reads the metrics. */
export const NO_METRICS: GatewayMetrics = {
  decision: () => undefined,
  gateTime: () => undefined,
  upstreamTime: () => undefined,
  upstream: () => NO_WATCH,
  session: () => NO_WATCH,
  stateStoreError: () => undefined,
  reload: () => undefined,
  approvalsWaiting: () => undefined,
};
