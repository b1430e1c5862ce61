import type { ConfigDir } from "../engine/model/configDir.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { startMetricsListener, type MetricsListener } from "../ops/metricsListener.js";
import { answerOps } from "../ops/opsRoutes.js";
import { PromMetrics } from "../ops/promMetrics.js";
import { Readiness } from "../ops/readiness.js";
import { observedState } from "../state/observedState.js";
import type { SharedState } from "../state/sharedState.js";
import type { FetchCatalog } from "../dashboard/catalogCache.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpsFlags } from "./opsOptions.js";

/** What serve runs for its operators: the metrics, readiness, and where they are served. */
export interface ServeOps {
  metrics: PromMetrics;
  readiness: Readiness;
  /** The state store, each failed operation counted. */
  state: SharedState;
  /** For the gateway's listener (--http): /healthz, /readyz, and /metrics with --metrics-token. */
  routes(req: IncomingMessage, res: ServerResponse): boolean;
  /** Starts what listens and fetches: the --metrics-port listener, the --require-server catalogs. */
  start(log: (line: string) => void): Promise<string | null>;
  close(): Promise<void>;
}

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** The gateway's metrics registry (loaded when serve has somewhere to show them). */
export function gatewayMetrics(): PromMetrics {
  return new PromMetrics();
}

export function serveOps(
  flags: OpsFlags,
  config: ConfigDir,
  metrics: PromMetrics,
  state: SharedState,
  fetchCatalog: FetchCatalog,
  baseDir: string,
): ServeOps {
  const observed = observedState(state, () => metrics.stateStoreError());
  const readiness = new Readiness({
    stateStore: async () => {
      await observed.ping?.();
      return true;
    },
    requiredServers: flags.requireServer,
    hasCatalog: (server) => metrics.hasCatalog(server),
  });
  const ops = {
    readiness,
    metrics,
    metricsToken: flags.metricsToken ?? null,
  };
  let listener: MetricsListener | null = null;
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  /** A required server's catalog, fetched on a connection of its own until it is in (backing off). */
  const fetchRequired = (server: McpServerConfig, log: (line: string) => void, delay: number): void => {
    const watch = metrics.upstream(server.name);
    watch.state("starting");
    fetchCatalog(server, baseDir).then(
      () => {
        watch.state("up");
        watch.catalog();
        watch.closed();
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        watch.state("failed", reason);
        if (closed) return watch.closed();
        log(`--require-server ${server.name}: its catalog is not in (${reason}); retry in ${delay / 1000} s`);
        const timer = setTimeout(() => {
          timers.delete(timer);
          watch.closed();
          if (!closed) fetchRequired(server, log, Math.min(RETRY_MAX_MS, delay * 2));
        }, delay);
        timer.unref();
        timers.add(timer);
      },
    );
  };

  return {
    metrics,
    readiness,
    state: observed,
    routes: (req, res) => answerOps(req, res, ops),
    async start(log) {
      for (const name of flags.requireServer) {
        fetchRequired(
          config.mcp.servers.find((s) => s.name === name)!,
          log,
          RETRY_FIRST_MS,
        );
      }
      if (flags.metricsPort !== undefined) {
        try {
          listener = await startMetricsListener({
            host: flags.metricsHost,
            port: flags.metricsPort,
            metrics,
            readiness,
          });
        } catch (error) {
          return `cannot listen on ${flags.metricsHost}:${flags.metricsPort} (--metrics-port): ${error instanceof Error ? error.message : String(error)}`;
        }
        log(`metrics on ${listener.origin}/metrics`);
      }
      readiness.setConfigured();
      return null;
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      metrics.close();
      await listener?.close();
    },
  };
}
