import type { ServeConfig } from "./serveConfig.js";
import type { ServeOps } from "./serveOps.js";

/** How a running serve reloads and stops. */
export interface ServeLifecycle {
  /** What a change of reloads: the configuration directory, the policy file, the tokens file. */
  watch: string[];
  /** Reads and applies the configuration again; the new one when applied, null when refused. */
  reload(trigger: string): Promise<ServeConfig | null>;
  /** `--drain-timeout`: how long the requests in flight get after SIGTERM/SIGINT. */
  drainMs: number;
  /** Health, readiness and metrics (`null` without --http, --metrics-port or --require-server). */
  ops: ServeOps | null;
}

/**
 * SIGTERM and SIGINT drain: new requests are refused, those in flight get `drainMs` to finish, then `stop`
 * ends everything (the audit log is flushed after it). A second signal stops at once.
 */
export function onStopSignals(
  log: (line: string) => void,
  drainMs: number,
  drain: (ms: number) => Promise<{ unfinished: number }>,
  stop: () => Promise<void>,
): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log(`${signal} again: stopping now`);
      void stop();
      return;
    }
    stopping = true;
    log(
      `${signal}: draining; new requests are refused, those in flight get up to ${drainMs / 1000} s (--drain-timeout)`,
    );
    void drain(drainMs)
      .then(({ unfinished }) =>
        log(
          unfinished === 0
            ? "drained: every request in flight was answered"
            : `drain timeout: ${unfinished} ${unfinished === 1 ? "request" : "requests"} still in flight are cut (--drain-timeout)`,
        ),
      )
      .then(stop);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
