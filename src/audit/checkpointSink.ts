import { signCheckpoint, type CheckpointPayload, type CheckpointSigner } from "./checkpoint.js";
import type { CheckpointPublisher } from "./checkpointPublisher.js";
import type { AuditEvent, CheckpointEvent, CheckpointTrigger } from "./events.js";
import type { JsonlFileSink } from "./jsonlFileSink.js";
import type { AuditPosition } from "./receipt.js";
import type { AuditSink } from "./sink.js";

export interface CheckpointSettings {
  signer: CheckpointSigner;
  /** `--checkpoint-every`: a checkpoint once this many events were written since the last. */
  every: number;
  /** `--checkpoint-interval`: a checkpoint this often, when events were written since the last. */
  intervalMs: number;
  /** The `session` of checkpoint events: wrap's label, `gateway` for serve. */
  session: string;
  /** `--checkpoint-publish`: where each checkpoint goes once written. */
  publisher: CheckpointPublisher | null;
  log: (line: string) => void;
}

/**
 * A JSONL log with signed checkpoints (checkpoint.ts): every event is written as the file sink writes it
 * and its position returned (the call's receipt); a checkpoint follows every N events, every T seconds, at
 * a reload and at a clean shutdown — whenever events were written since the last one.
 *
 * Signing stays off the calls' path: a call's event is written as before, and the checkpoint it makes due
 * is written from a later turn of the event loop (setImmediate), once the call has been answered. A
 * checkpoint that cannot be written is said on the log (E_AUDIT_WRITE) and tried again at the next turn
 * that makes one due; the calls go on (their events are in the log, a later checkpoint vouches for them).
 */
export class CheckpointingSink implements AuditSink {
  readonly receipts = true;
  /** Events written since the last checkpoint. */
  private since = 0;
  private scheduled: CheckpointTrigger | null = null;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly file: JsonlFileSink,
    private readonly settings: CheckpointSettings,
  ) {
    this.timer = setInterval(() => this.checkpointNow("interval"), settings.intervalMs);
    this.timer.unref();
  }

  write(event: AuditEvent): AuditPosition {
    const position = this.file.write(event);
    if (++this.since >= this.settings.every) this.soon("events");
    return position;
  }

  checkpoint(trigger: "reload"): void {
    this.soon(trigger);
  }

  /** At a clean shutdown: the last checkpoint, then what the publisher still holds (bounded). */
  async drain(timeoutMs: number): Promise<void> {
    this.checkpointNow("shutdown");
    await this.settings.publisher?.drain(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    // Events written after the drain (or without one) still get their checkpoint; publishing it is not
    // waited for here.
    this.checkpointNow("shutdown");
    this.closed = true;
    this.file.close();
  }

  private soon(trigger: CheckpointTrigger): void {
    if (this.scheduled !== null) return;
    this.scheduled = trigger;
    setImmediate(() => {
      this.scheduled = null;
      this.checkpointNow(trigger);
    });
  }

  /** Signs and writes a checkpoint now, when events were written since the last (never on a call's path). */
  checkpointNow(trigger: CheckpointTrigger): void {
    if (this.since === 0 || this.closed) return;
    const { signer, session, publisher } = this.settings;
    try {
      const written = this.file.writeBuilt((at): CheckpointEvent => {
        const time = new Date().toISOString();
        const checkpoint: CheckpointPayload = {
          // A log with events has a first line, so an id (written here or by the process before).
          log_id: at.logId!,
          seq: at.head.seq,
          head: at.head.hash,
          time,
          prev_checkpoint: at.lastCheckpoint,
          key_id: signer.keyId,
        };
        return {
          time,
          session,
          policy_digest: null,
          request_id: null,
          event: "checkpoint",
          trigger,
          checkpoint,
          signature: signCheckpoint(checkpoint, signer),
        };
      });
      this.since = 0;
      publisher?.publish(written.line, written.position.seq);
    } catch (error) {
      this.settings.log(
        `E_AUDIT_WRITE: the audit log's checkpoint (${trigger}) could not be written: ${error instanceof Error ? error.message : String(error)}; the next one covers its events`,
      );
    }
  }
}
