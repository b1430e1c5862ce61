import { Option, type Command } from "commander";
import { collect, integer } from "./optionParsers.js";

/** The operator's flags of `serve` and `wrap` (docs/operations.md). */
export interface OpsFlags {
  metricsPort?: number;
  metricsHost: string;
  metricsToken?: string;
  requireServer: string[];
}

/** `--metrics-port` and `--metrics-host`: wrap's and serve's own listener for /metrics. */
export function addMetricsPortOptions<C extends Command>(command: C): C {
  command
    .option(
      "--metrics-port <port>",
      "serve GET /metrics (Prometheus text), /healthz and /readyz on a listener of their own, without a token (0: any free port)",
      integer(0, "a port number"),
    )
    .option(
      "--metrics-host <address>",
      "address the --metrics-port listener binds (it has no token: loopback unless you mean it)",
      "127.0.0.1",
    );
  return command;
}

/** serve's: the metrics listener, /metrics on the gateway's port behind a token, and readiness. */
export function addServeOpsOptions<C extends Command>(command: C): C {
  addMetricsPortOptions(command)
    .addOption(
      new Option(
        "--metrics-token <token>",
        "also serve GET /metrics on the gateway's port (--http) to this bearer token (not there without one)",
      ).env("TOOLGATE_METRICS_TOKEN"),
    )
    .option(
      "--require-server <name>",
      "GET /readyz answers 200 only once this server's catalog is in (repeatable; fetched at start)",
      collect,
      [],
    );
  return command;
}
