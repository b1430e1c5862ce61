import { performance } from "node:perf_hooks";
import type { GatewayMetrics } from "../ops/gatewayMetrics.js";
import type { CallPort } from "./callPort.js";

/**
 * The call's port, timed for the gateway's metrics: toolgate's own time from the call's arrival until it
 * is forwarded or answered (a person's time to answer an approval question left out), and the server's
 * time when the surface's `forward` says when the answer came (it returns a promise that settles then).
 */
export function timedPort(port: CallPort, metrics: GatewayMetrics): CallPort {
  const started = performance.now();
  let personMs = 0;
  let server: string | null = null;
  let timed = false;
  const settled = (): void => {
    if (timed) return;
    timed = true;
    metrics.gateTime(server, (performance.now() - started - personMs) / 1000);
  };
  return {
    era: port.era,
    asksOutOfBand: port.asksOutOfBand,
    cannotAsk: port.cannotAsk,
    resolve: (params) => {
      const target = port.resolve(params);
      if (target === null) return null;
      server = target.server.name;
      const absent = target.absent;
      return {
        ...target,
        absent: (answered) => {
          settled();
          absent(answered);
        },
      };
    },
    uncounted: (reason, receipt) => {
      settled();
      return port.uncounted(reason, receipt);
    },
    forward: (params, approved, failed, shape) => {
      settled();
      const at = performance.now();
      const answered = port.forward(params, approved, failed, shape);
      if (answered instanceof Promise) {
        const done = (): void => metrics.upstreamTime(server, (performance.now() - at) / 1000);
        answered.then(done, done);
      }
      return answered;
    },
    ask: (question, about) => {
      const at = performance.now();
      const outcome = port.ask(question, about);
      const done = (): void => {
        personMs += performance.now() - at;
      };
      outcome.then(done, done);
      return outcome;
    },
    answer: (result) => {
      settled();
      port.answer(result);
    },
    error: (code, message, data) => {
      settled();
      port.error(code, message, data);
    },
    withdrawn: () => {
      settled();
      port.withdrawn();
    },
    failed: (error) => port.failed(error),
  };
}
