import { readSync } from "node:fs";
import { decodeUtf8, MAX_AUDIT_LINE_BYTES } from "./auditFile.js";
import { lineHash, parseChainedLine } from "./chain.js";

/**
 * Two places of a log a signing sink needs when it opens a log or follows another writer: its first line
 * (whose hash is the log's id, checkpoint.ts) and its last checkpoint (the next one links to it). Read with
 * positioned reads on a descriptor the caller owns.
 */

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;
const CHECKPOINT_MARK = Buffer.from('"event":"checkpoint"', "utf8");

/** The hash of the first line of the first `size` bytes, or null when they hold no complete line. */
export function firstLineHash(fd: number, size: number): string | null {
  const chunks: Buffer[] = [];
  let position = 0;
  while (position < size) {
    const length = Math.min(CHUNK, size - position);
    const chunk = Buffer.alloc(length);
    const read = readSync(fd, chunk, 0, length, position);
    if (read === 0) return null;
    const newline = chunk.subarray(0, read).indexOf(NEWLINE);
    if (newline >= 0) {
      chunks.push(chunk.subarray(0, newline));
      return lineHash(Buffer.concat(chunks));
    }
    chunks.push(chunk.subarray(0, read));
    position += read;
    if (position > MAX_AUDIT_LINE_BYTES) return null;
  }
  return null;
}

/**
 * The line hash of the last checkpoint event in bytes [start, end) of the file — `start` at a line's
 * beginning, `end` right after a newline —, or null when there is none. Read backwards: at a restart the
 * last checkpoint is usually the previous run's last line (written at its shutdown).
 */
export function lastCheckpointHash(fd: number, start: number, end: number): string | null {
  for (const line of linesBackward(fd, start, end)) {
    // Only a line with the member written as the sink writes it can be one; it is then parsed to be sure
    // (the same text inside a string would be escaped, but a nested object could hold it).
    if (line.indexOf(CHECKPOINT_MARK) < 0) continue;
    const text = decodeUtf8(line);
    if (text === null) continue;
    const parsed = parseChainedLine(text);
    if (parsed.ok && parsed.event.event === "checkpoint") return lineHash(line);
  }
  return null;
}

/** The lines of bytes [start, end), last first, without their newlines. */
function* linesBackward(fd: number, start: number, end: number): Generator<Buffer> {
  if (end <= start) return;
  // The byte at end − 1 is the last line's newline.
  let position = end - 1;
  let carry = Buffer.alloc(0);
  while (position > start) {
    const length = Math.min(CHUNK, position - start);
    const chunk = Buffer.alloc(length);
    readSync(fd, chunk, 0, length, position - length);
    position -= length;
    let pending = carry.length === 0 ? chunk : Buffer.concat([chunk, carry]);
    for (let newline = pending.lastIndexOf(NEWLINE); newline >= 0; newline = pending.lastIndexOf(NEWLINE)) {
      yield pending.subarray(newline + 1);
      pending = pending.subarray(0, newline);
    }
    carry = Buffer.from(pending);
    if (carry.length > MAX_AUDIT_LINE_BYTES) return;
  }
  yield carry;
}
