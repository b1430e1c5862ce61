import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type {
  DecisionVerdict,
  GatewayMetrics,
  ReloadResult,
  SessionEra,
  SessionWatch,
  UpstreamState,
  UpstreamWatch,
} from "./gatewayMetrics.js";
import type { GatewayStatus, MetricsSource, ServerStatus, StatusSource } from "./gatewayStatus.js";

/** Seconds: toolgate's own time is sub-millisecond to milliseconds, a server's milliseconds to minutes. */
const GATE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const UPSTREAM_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const STATES: readonly UpstreamState[] = ["up", "starting", "failed"];
const ERAS: readonly SessionEra[] = ["legacy", "modern"];
/** How often the decision total is sampled for the status panel's rate, and how far back the rate looks. */
const SAMPLE_MS = 5000;
const RATE_WINDOW_MS = 60_000;

interface ServerConnections {
  watches: Map<object, UpstreamState>;
  lastError: string | null;
}

export interface PromMetricsOptions {
  /** The process's own metrics (CPU, memory, event loop lag, file descriptors); default true. */
  processMetrics?: boolean;
}

/**
 * The gateway's metrics in a registry of its own (never prom-client's global one: two gateways in one
 * process, or a test's, do not share counts). Names and labels are documented in docs/operations.md.
 */
export class PromMetrics implements GatewayMetrics, StatusSource, MetricsSource {
  readonly registry = new Registry();
  private readonly decisions: Counter<"verdict" | "code" | "server">;
  private readonly gateSeconds: Histogram<"server">;
  private readonly upstreamSeconds: Histogram<"server">;
  private readonly restarts: Counter<"server">;
  private readonly stateErrors: Counter;
  private readonly reloads: Counter<"result">;
  private readonly servers = new Map<string, ServerConnections>();
  private readonly sessions: Record<SessionEra, number> = { legacy: 0, modern: 0 };
  private readonly waitingReaders: Array<() => number> = [];
  private readonly samples: Array<{ at: number; total: number }> = [];
  /** Servers whose catalog has come in on some connection (readiness: --require-server). */
  private readonly catalogs = new Set<string>();
  private readonly sampler: NodeJS.Timeout;
  private decisionsTotal = 0;

  constructor(options: PromMetricsOptions = {}) {
    const registers = [this.registry];
    this.decisions = new Counter({
      name: "toolgate_decisions_total",
      help: "Decisions about tool calls, and tools hidden from lists, by verdict (allow, deny, hidden; would-deny, would-hide in a dry run), code and server",
      labelNames: ["verdict", "code", "server"],
      registers,
    });
    this.gateSeconds = new Histogram({
      name: "toolgate_gate_duration_seconds",
      help: "Time toolgate itself spent on a tool call (deciding, recording), without the server's time or a person's",
      labelNames: ["server"],
      buckets: GATE_BUCKETS,
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: "toolgate_upstream_duration_seconds",
      help: "Time a server took to answer a forwarded tool call",
      labelNames: ["server"],
      buckets: UPSTREAM_BUCKETS,
      registers,
    });
    const servers = this.servers;
    new Gauge({
      name: "toolgate_upstream_state",
      help: "1 for each server's state (up, starting, failed) now; a server no session faces has none",
      labelNames: ["server", "state"],
      registers,
      collect() {
        this.reset();
        for (const [server, connections] of servers) {
          const state = overall(connections);
          if (state === null) continue;
          for (const s of STATES) this.set({ server, state: s }, s === state ? 1 : 0);
        }
      },
    });
    this.restarts = new Counter({
      name: "toolgate_upstream_restarts_total",
      help: "Reconnections to a server after its connection failed or dropped",
      labelNames: ["server"],
      registers,
    });
    const sessions = this.sessions;
    new Gauge({
      name: "toolgate_sessions",
      help: "Client sessions open now, by protocol era (legacy: 2025-11-25 and before; modern: 2026-07-28)",
      labelNames: ["era"],
      registers,
      collect() {
        for (const era of ERAS) this.set({ era }, sessions[era]);
      },
    });
    const readers = this.waitingReaders;
    new Gauge({
      name: "toolgate_approvals_waiting",
      help: "Calls waiting for a person's approval now",
      registers,
      collect() {
        this.set(readers.reduce((sum, read) => sum + read(), 0));
      },
    });
    this.stateErrors = new Counter({
      name: "toolgate_state_store_errors_total",
      help: "Operations of the state store (--state) that failed; the requests that needed them were refused",
      registers,
    });
    this.reloads = new Counter({
      name: "toolgate_reloads_total",
      help: "Configuration reloads, by result (applied, refused)",
      labelNames: ["result"],
      registers,
    });
    // Both results exist from the start, so a rate over them is defined before the first reload.
    for (const result of ["applied", "refused"] as const) this.reloads.inc({ result }, 0);
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.samples.push({ at: Date.now(), total: 0 });
    this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
    this.sampler.unref();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  metricsText(): Promise<string> {
    return this.registry.metrics();
  }

  decision(verdict: DecisionVerdict, code: string | null, server: string | null): void {
    this.decisions.inc({ verdict, code: code ?? "", server: server ?? "" });
    this.decisionsTotal++;
  }

  gateTime(server: string | null, seconds: number): void {
    this.gateSeconds.observe({ server: server ?? "" }, Math.max(0, seconds));
  }

  upstreamTime(server: string | null, seconds: number): void {
    this.upstreamSeconds.observe({ server: server ?? "" }, Math.max(0, seconds));
  }

  upstream(server: string): UpstreamWatch {
    let connections = this.servers.get(server);
    if (connections === undefined) {
      connections = { watches: new Map(), lastError: null };
      this.servers.set(server, connections);
    }
    const entry = connections;
    const key = {};
    return {
      state: (state, error) => {
        entry.watches.set(key, state);
        if (state === "failed" && error !== undefined) entry.lastError = error;
      },
      restarted: () => this.restarts.inc({ server }),
      catalog: () => void this.catalogs.add(server),
      closed: () => void entry.watches.delete(key),
    };
  }

  session(era: SessionEra): SessionWatch {
    this.sessions[era]++;
    let open = true;
    return {
      closed: () => {
        if (!open) return;
        open = false;
        this.sessions[era]--;
      },
    };
  }

  stateStoreError(): void {
    this.stateErrors.inc();
  }

  reload(result: ReloadResult): void {
    this.reloads.inc({ result });
  }

  approvalsWaiting(read: () => number): void {
    this.waitingReaders.push(read);
  }

  /** Whether `server`'s catalog has come in on any connection since the gateway started. */
  hasCatalog(server: string): boolean {
    return this.catalogs.has(server);
  }

  /** The status panel's figures, read from the same counters `/metrics` serves. */
  async status(): Promise<GatewayStatus> {
    const restarts = new Map<string, number>();
    for (const v of (await this.restarts.get()).values) restarts.set(String(v.labels.server), v.value);
    const waiting = (await this.registry.getSingleMetric("toolgate_approvals_waiting")!.get()).values;
    const total = (await this.decisions.get()).values.reduce((sum, v) => sum + v.value, 0);
    const servers: ServerStatus[] = [...this.servers]
      .map(([server, c]) => ({
        server,
        state: overall(c),
        lastError: c.lastError,
        restarts: restarts.get(server) ?? 0,
      }))
      .sort((a, b) => a.server.localeCompare(b.server));
    return {
      servers,
      sessions: { ...this.sessions },
      approvalsWaiting: waiting[0]?.value ?? 0,
      decisionsPerMinute: this.perMinute(total),
      decisionsTotal: total,
    };
  }

  /** Stops the sampler (the gateway is closing). */
  close(): void {
    clearInterval(this.sampler);
  }

  private sample(): void {
    const now = Date.now();
    this.samples.push({ at: now, total: this.decisionsTotal });
    while (this.samples.length > 2 && this.samples[1]!.at <= now - RATE_WINDOW_MS) this.samples.shift();
  }

  private perMinute(total: number): number {
    const now = Date.now();
    const from = this.samples.find((s) => s.at >= now - RATE_WINDOW_MS) ?? this.samples[0]!;
    const seconds = Math.max(1, (now - from.at) / 1000);
    return Math.round(((total - from.total) / seconds) * 60 * 10) / 10;
  }
}

/** A server's state over its connections: up when any is, else starting when any is, else failed. */
function overall(connections: ServerConnections): UpstreamState | null {
  const states = new Set(connections.watches.values());
  for (const s of STATES) if (states.has(s)) return s;
  return null;
}
