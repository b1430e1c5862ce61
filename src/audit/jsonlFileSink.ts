import { closeSync, openSync, writeSync } from "node:fs";
import { ToolgateError } from "../errors.js";
import type { AuditEvent } from "./events.js";
import type { AuditSink } from "./sink.js";

/**
 * JSON Lines, append-only: opened with "a" so every write lands at the end even if others append too,
 * and written synchronously so the event is in the file before the call it records goes anywhere.
 */
export class JsonlFileSink implements AuditSink {
  private fd: number | null;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, "a", 0o600);
    } catch (error) {
      throw new ToolgateError("E_AUDIT_OPEN", `cannot open audit log '${path}': ${(error as Error).message}`);
    }
  }

  write(event: AuditEvent): void {
    if (this.fd === null) throw new ToolgateError("E_AUDIT_WRITE", `audit log '${this.path}' is closed`);
    const line = JSON.stringify(event) + "\n";
    try {
      // One write(2) of the string in the common case; a short write finishes from the encoded bytes.
      const written = writeSync(this.fd, line);
      const bytes = Buffer.byteLength(line, "utf8");
      if (written < bytes) {
        const rest = Buffer.from(line, "utf8");
        let offset = written;
        while (offset < rest.length) offset += writeSync(this.fd, rest, offset, rest.length - offset);
      }
    } catch (error) {
      throw new ToolgateError(
        "E_AUDIT_WRITE",
        `cannot write audit log '${this.path}': ${(error as Error).message}`,
      );
    }
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}
