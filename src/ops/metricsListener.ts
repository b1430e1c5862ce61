import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsSource } from "./gatewayStatus.js";
import { answerOps } from "./opsRoutes.js";
import type { Readiness } from "./readiness.js";

export interface MetricsListener {
  /** `http://HOST:PORT` */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `--metrics-port`: a listener of its own for `/metrics` (no token: it binds loopback unless told
 * otherwise with `--metrics-host`), with `/healthz` and, where there is one, `/readyz` beside it.
 */
export async function startMetricsListener(options: {
  host: string;
  port: number;
  metrics: MetricsSource;
  readiness: Readiness | null;
}): Promise<MetricsListener> {
  const ops = { metrics: options.metrics, readiness: options.readiness, metricsToken: undefined };
  const server = createServer((req, res) => {
    if (answerOps(req, res, ops)) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "Not Found: this port serves /metrics, /healthz and /readyz" }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    origin: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
