import { writeJson } from "../engine/json/jsonNumber.js";
import { closeSync, fstatSync, openSync, writeSync } from "node:fs";
import { ToolgateError } from "../engine/errors.js";
import { chainHeadAt } from "./auditFile.js";
import { chainedLine, GENESIS_HEAD, lineHash, type ChainHead } from "./chain.js";
import type { AuditEvent } from "./events.js";
import { firstLineHash, lastCheckpointHash } from "./logLandmarks.js";
import type { AuditPosition } from "./receipt.js";
import type { AuditSink } from "./sink.js";

/** Where the chain stands right before a write: what a checkpoint signs (checkpointSink.ts). */
export interface ChainState {
  head: ChainHead;
  /** The hash of the log's first line; null while the log is empty. */
  logId: string | null;
  /** The line hash of the log's last checkpoint; null when it has none (or they are not tracked). */
  lastCheckpoint: string | null;
}

/**
 * JSON Lines, append-only and hash-chained (chain.ts): opened with "a" so every write lands at the end, and
 * written synchronously so the event is in the file before the call it records goes anywhere.
 *
 * Appending to an existing log continues its chain from its last line, read when the sink opens; a log
 * whose last line is not a complete chained event is refused (`E_AUDIT_CHAIN`), never silently restarted.
 * Before each write the sink checks that the file is still the size it left it: when another process
 * appended in between (two wrappers sharing a log), the chain continues from the line that process wrote;
 * when the file now ends in something that is not a chained event, the write fails and the call is refused.
 * Writers racing within that check can still fork the chain; `audit verify` then reports the fork. One log
 * file per process avoids it.
 *
 * Every write returns where the event landed: the log's id (the hash of its first line), its `seq` and its
 * line's hash. With `checkpoints`, the sink also knows the log's last checkpoint (read back when it opens,
 * and from another writer's lines when it follows them), which the next checkpoint links to.
 */
export class JsonlFileSink implements AuditSink {
  private fd: number | null;
  /** A second descriptor for reading the end of the file back (regular files only). */
  private readFd: number | null = null;
  private head: ChainHead = GENESIS_HEAD;
  /** The file's size after our last write; -1 when it is not a regular file (a pipe, /dev/…). */
  private expectedSize = -1;
  private logId: string | null = null;
  private lastCheckpoint: string | null = null;

  constructor(
    readonly path: string,
    private readonly options: { checkpoints?: boolean } = {},
  ) {
    try {
      this.fd = openSync(path, "a", 0o600);
    } catch (error) {
      throw new ToolgateError("E_AUDIT_OPEN", `cannot open audit log '${path}': ${(error as Error).message}`);
    }
    try {
      const stat = fstatSync(this.fd);
      if (stat.isFile()) {
        this.readFd = openSync(path, "r");
        const readStat = fstatSync(this.readFd);
        if (readStat.ino !== stat.ino || readStat.dev !== stat.dev) {
          throw new ToolgateError(
            "E_AUDIT_OPEN",
            `audit log '${path}' was replaced while it was being opened`,
          );
        }
        this.expectedSize = readStat.size;
        this.head = chainHeadAt(this.readFd, this.expectedSize, path);
        this.readLandmarks(0, this.expectedSize);
      }
    } catch (error) {
      this.close();
      if (error instanceof ToolgateError) throw error;
      throw new ToolgateError("E_AUDIT_OPEN", `cannot read audit log '${path}': ${(error as Error).message}`);
    }
  }

  /** Where the chain stands: the last written line's `seq` and hash. */
  get chainHead(): ChainHead {
    return this.head;
  }

  write(event: AuditEvent): AuditPosition {
    return this.append(() => event).position;
  }

  /**
   * Writes the event `build` makes from where the chain stands right before the write (after any lines of
   * another writer): a checkpoint signs the head it follows. Returns the line written (without newline).
   */
  writeBuilt(build: (at: ChainState) => AuditEvent): { position: AuditPosition; line: string } {
    const { position, bytes } = this.append(() =>
      build({ head: this.head, logId: this.logId, lastCheckpoint: this.lastCheckpoint }),
    );
    return { position, line: bytes.toString("utf8", 0, bytes.length - 1) };
  }

  private append(build: () => AuditEvent): { position: AuditPosition; bytes: Buffer } {
    if (this.fd === null) throw new ToolgateError("E_AUDIT_WRITE", `audit log '${this.path}' is closed`);
    this.followOtherWriters();
    const event = build();
    if (Object.hasOwn(event, "seq") || Object.hasOwn(event, "prev")) {
      throw new ToolgateError("E_AUDIT_WRITE", "an audit event must not carry the chain fields seq or prev");
    }
    const json = writeJson(event);
    if (json.length < 3 || json[0] !== "{") {
      throw new ToolgateError(
        "E_AUDIT_WRITE",
        "an audit event must be a JSON object with at least one field",
      );
    }
    // Encoded once: the same bytes are written and hashed into the chain.
    const bytes = Buffer.from(chainedLine(json, this.head) + "\n", "utf8");
    try {
      // One write(2) in the common case; a short write finishes the rest.
      let offset = writeSync(this.fd, bytes);
      while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // A partial line may be in the file; the size check before the next write finds it and refuses.
      throw new ToolgateError(
        "E_AUDIT_WRITE",
        `cannot write audit log '${this.path}': ${(error as Error).message}`,
      );
    }
    const hash = lineHash(bytes.subarray(0, bytes.length - 1));
    this.head = { seq: this.head.seq + 1, hash };
    if (this.expectedSize >= 0) this.expectedSize += bytes.length;
    if (this.head.seq === 1) this.logId = hash;
    if (event.event === "checkpoint") this.lastCheckpoint = hash;
    return { position: { log_id: this.logId ?? hash, seq: this.head.seq, hash }, bytes };
  }

  close(): void {
    if (this.readFd !== null) {
      closeSync(this.readFd);
      this.readFd = null;
    }
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  /** Re-reads the head when the file is not the size our own writes left it (see the class comment). */
  private followOtherWriters(): void {
    if (this.readFd === null || this.expectedSize < 0) return;
    let size: number;
    try {
      size = fstatSync(this.fd!).size;
    } catch (error) {
      throw new ToolgateError(
        "E_AUDIT_WRITE",
        `cannot check audit log '${this.path}': ${(error as Error).message}`,
      );
    }
    if (size === this.expectedSize) return;
    if (size < this.expectedSize) {
      throw new ToolgateError(
        "E_AUDIT_CHAIN",
        `audit log '${this.path}' shrank from ${this.expectedSize} to ${size} bytes while it was open; refusing to continue its chain`,
        `run \`toolgate audit verify ${this.path}\` and start a new log file`,
      );
    }
    try {
      this.head = chainHeadAt(this.readFd, size, this.path);
      this.readLandmarks(this.expectedSize, size);
    } catch (error) {
      if (error instanceof ToolgateError) throw error;
      throw new ToolgateError(
        "E_AUDIT_WRITE",
        `cannot read audit log '${this.path}': ${(error as Error).message}`,
      );
    }
    this.expectedSize = size;
  }

  /** The log's id when not known yet, and the last checkpoint among bytes [from, to) when tracked. */
  private readLandmarks(from: number, to: number): void {
    if (this.head.seq === 0) return;
    this.logId ??= firstLineHash(this.readFd!, to);
    if (this.options.checkpoints === true) {
      this.lastCheckpoint = lastCheckpointHash(this.readFd!, from, to) ?? this.lastCheckpoint;
    }
  }
}
