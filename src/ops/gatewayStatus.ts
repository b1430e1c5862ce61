import type { SessionEra, UpstreamState } from "./gatewayMetrics.js";

/** One server as the status panel shows it. */
export interface ServerStatus {
  server: string;
  /** `null`: no connection faces it now (no session has needed it yet, or its sessions ended). */
  state: UpstreamState | null;
  /** Why its last connection failed, `null` when none has. */
  lastError: string | null;
  restarts: number;
}

/** The gateway's state at a glance, read from the counters `/metrics` serves (the dashboard's status panel). */
export interface GatewayStatus {
  servers: ServerStatus[];
  sessions: Record<SessionEra, number>;
  approvalsWaiting: number;
  /** Decisions over about the last minute (fewer seconds just after start), scaled to one minute. */
  decisionsPerMinute: number;
  decisionsTotal: number;
}

/** Where the status comes from (promMetrics.ts), without the reader loading prom-client. */
export interface StatusSource {
  status(): Promise<GatewayStatus>;
}

/** Scrapes of `/metrics`: the registry's text and its content type. */
export interface MetricsSource {
  readonly contentType: string;
  metricsText(): Promise<string>;
}
