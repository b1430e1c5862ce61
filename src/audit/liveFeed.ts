import type { AuditEvent } from "./events.js";
import type { AuditSink } from "./sink.js";

/**
 * Decisions as they happen, for the dashboard's live view: a sink that keeps the last events (bounded) and
 * tells each subscriber about every new one. It holds exactly what the audit log holds (argument digests,
 * or what redaction leaves), never more. Never refuses an event: a slow or failing viewer must not make a
 * call unrecordable.
 */
export class LiveFeed implements AuditSink {
  private readonly recent: AuditEvent[] = [];
  private readonly subscribers = new Set<(event: AuditEvent) => void>();

  constructor(private readonly keep = 500) {}

  write(event: AuditEvent): void {
    this.recent.push(event);
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep);
    for (const subscriber of this.subscribers) {
      try {
        subscriber(event);
      } catch {
        // A viewer that cannot take the event loses it; the call is recorded anyway.
      }
    }
  }

  close(): void {
    this.subscribers.clear();
  }

  /** The last events, oldest first. */
  last(): readonly AuditEvent[] {
    return this.recent;
  }

  subscribe(subscriber: (event: AuditEvent) => void): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }
}
