import type { AuditEvent } from "./events.js";

/**
 * Where audit events go. `write` is synchronous and throws when the event was not recorded: the gateway
 * then refuses the call instead of forwarding it unrecorded.
 */
export interface AuditSink {
  write(event: AuditEvent): void;
  close(): void;
}

/** Several sinks as one; an event counts as written only when every sink wrote it. */
export function fanOutSink(sinks: readonly AuditSink[]): AuditSink {
  return {
    write(event) {
      for (const sink of sinks) sink.write(event);
    },
    close() {
      for (const sink of sinks) sink.close();
    },
  };
}
