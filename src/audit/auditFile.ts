import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ToolgateError } from "../engine/errors.js";
import { GENESIS_HEAD, lineHash, parseChainedLine, type ChainHead } from "./chain.js";

/** Reading audit log files: the chain head at the end of a file, and its lines one by one. */

/** Longest line read back when finding the head; a longer last line is refused, not guessed at. */
export const MAX_AUDIT_LINE_BYTES = 64 * 1024 * 1024;
/** Bytes read at a time; a line's bytes are a view of its chunk. */
const CHUNK = 256 * 1024;
const NEWLINE = 0x0a;

/**
 * The chain head after the last line of the first `size` bytes of the file open on `fd`: GENESIS_HEAD for
 * an empty file. Throws `E_AUDIT_CHAIN` when the last line is not a complete chained event (no newline at
 * the end — a write cut short or a truncated file —, not JSON, or without chain fields, e.g. a log from
 * before the chain): appending would then start a chain nobody could tell from a forged one.
 */
export function chainHeadAt(fd: number, size: number, path: string): ChainHead {
  if (size === 0) return GENESIS_HEAD;
  const last = readByte(fd, size - 1);
  if (last !== NEWLINE) {
    throw chainError(
      path,
      "its last line is incomplete (no newline at the end: a write cut short or a truncated file)",
    );
  }
  const line = lastLine(fd, size - 1, path);
  const text = decodeUtf8(line);
  const parsed = text === null ? { ok: false as const, why: "not UTF-8" } : parseChainedLine(text);
  if (!parsed.ok) throw chainError(path, `its last line is not a chained audit event: ${parsed.why}`);
  return { seq: parsed.seq, hash: lineHash(line) };
}

function chainError(path: string, what: string): ToolgateError {
  return new ToolgateError(
    "E_AUDIT_CHAIN",
    `cannot append to audit log '${path}': ${what}`,
    `run \`toolgate audit verify ${path}\` to see what happened to it, and start a new log file (--audit-log) rather than extending this one`,
  );
}

function readByte(fd: number, position: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, position);
  return one[0]!;
}

/** The bytes before `end` back to the previous newline (or the start of the file). */
function lastLine(fd: number, end: number, path: string): Buffer {
  const chunks: Buffer[] = [];
  let position = end;
  let total = 0;
  while (position > 0) {
    const length = Math.min(CHUNK, position);
    const chunk = Buffer.alloc(length);
    readSync(fd, chunk, 0, length, position - length);
    position -= length;
    const newline = chunk.lastIndexOf(NEWLINE);
    if (newline >= 0) {
      chunks.unshift(chunk.subarray(newline + 1));
      break;
    }
    chunks.unshift(chunk);
    total += length;
    if (total > MAX_AUDIT_LINE_BYTES) {
      throw chainError(path, `its last line is longer than ${MAX_AUDIT_LINE_BYTES} bytes`);
    }
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes, or null when they are not UTF-8 (a line is then not an event). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

export interface FileLine {
  /** 1-based. */
  number: number;
  /** Without the newline. */
  bytes: Buffer;
  /** False only for a last line without a newline. */
  terminated: boolean;
}

/**
 * The lines of an open file, read in chunks (a log can be larger than memory allows at once). Each read
 * fills a buffer of its own, and a line inside one is a view of it, not a copy (replay reads a million lines
 * in seconds; copying each one cost a tenth of that): a reader that keeps a line's bytes keeps its chunk.
 * `end`: read no further than this byte (the size the file had when a reader began, while a gateway may
 * still be appending to it).
 */
export function* fileLines(fd: number, end = Infinity): Generator<FileLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  let position = 0;
  for (;;) {
    // Not zeroed: only the `read` bytes the file wrote into it are ever looked at.
    const buffer = Buffer.allocUnsafeSlow(CHUNK);
    const read = readSync(fd, buffer, 0, Math.min(CHUNK, end - position), position);
    position += read;
    if (read === 0) break;
    const chunk = buffer.subarray(0, read);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      yield { number: ++number, bytes, terminated: true };
      start = newline + 1;
    }
    if (start < read) {
      pending.push(chunk.subarray(start));
      pendingBytes += read - start;
      if (pendingBytes > MAX_AUDIT_LINE_BYTES) {
        throw new ToolgateError(
          "E_AUDIT_READ",
          `line ${number + 1} is longer than ${MAX_AUDIT_LINE_BYTES} bytes`,
        );
      }
    }
  }
  if (pending.length > 0) yield { number: number + 1, bytes: Buffer.concat(pending), terminated: false };
}

/** Opens `path` for reading; `E_AUDIT_READ` when it cannot be opened or is not a regular file. */
export function openAuditForReading(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new ToolgateError("E_AUDIT_READ", `cannot read audit log '${path}': ${(error as Error).message}`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new ToolgateError("E_AUDIT_READ", `audit log '${path}' is not a regular file`);
  }
  return fd;
}
