import type { AuditEvent } from "./events.js";
import type { AuditPosition } from "./receipt.js";

/**
 * Where audit events go. `write` is synchronous and throws when the event was not recorded: the gateway
 * then refuses the call instead of forwarding it unrecorded. A sink that signs its log (checkpointSink.ts)
 * returns where the event landed, for the call's receipt.
 */
export interface AuditSink {
  write(event: AuditEvent): AuditPosition | void;
  close(): void;
  /** `write` returns positions (a signed log): the answers to calls then carry receipts. */
  readonly receipts?: boolean;
  /** A signed log: write a checkpoint soon (after a reload), off the caller's path. */
  checkpoint?(trigger: "reload"): void;
  /**
   * For sinks that send in the background (OpenTelemetry): send what is still queued, waiting at most
   * `timeoutMs`. Called once at shutdown, before `close` (closeAuditSink does both).
   */
  drain?(timeoutMs: number): Promise<void>;
}

/** Several sinks as one; an event counts as written only when every sink wrote it. */
export function fanOutSink(sinks: readonly AuditSink[]): AuditSink {
  return {
    receipts: sinks.some((sink) => sink.receipts === true),
    write(event) {
      let position: AuditPosition | void = undefined;
      for (const sink of sinks) position = sink.write(event) ?? position;
      return position;
    },
    checkpoint(trigger) {
      for (const sink of sinks) sink.checkpoint?.(trigger);
    },
    close() {
      for (const sink of sinks) sink.close();
    },
    async drain(timeoutMs) {
      await Promise.all(sinks.map((sink) => sink.drain?.(timeoutMs)));
    },
  };
}

/**
 * How long shutdown waits for background sinks to send what they hold. Under 2 s: MCP hosts built on the
 * SDK's stdio client close a server's stdin and send SIGTERM 2 s later.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 1500;

/**
 * Shutdown: drain, then close. The wait is bounded here too (a drain gets `timeoutMs` and a little
 * more to report what it dropped), and a SIGTERM, SIGINT or SIGHUP while draining ends it at once (what
 * was not sent is dropped) instead of killing the process before it reports its exit status.
 */
export async function closeAuditSink(
  sink: AuditSink | null,
  timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS,
): Promise<void> {
  if (sink === null) return;
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
  let stop: () => void = () => {};
  const ended = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = (): void => stop();
  const timer = setTimeout(stop, timeoutMs + DRAIN_REPORT_MARGIN_MS);
  try {
    if (sink.drain !== undefined) {
      for (const signal of signals) process.on(signal, onSignal);
      await Promise.race([sink.drain(timeoutMs), ended]);
    }
  } finally {
    clearTimeout(timer);
    for (const signal of signals) process.off(signal, onSignal);
    sink.close();
  }
}

const DRAIN_REPORT_MARGIN_MS = 100;
