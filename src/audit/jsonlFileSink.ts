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
    const bytes = Buffer.from(JSON.stringify(event) + "\n", "utf8");
    let offset = 0;
    try {
      while (offset < bytes.length) offset += writeSync(this.fd, bytes, offset, bytes.length - offset);
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
