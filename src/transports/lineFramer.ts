import { isUtf8 } from "node:buffer";
import type { InboundFrame } from "../engine/rpc/frames.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Cuts a byte stream into newline-delimited frames (the MCP stdio framing). A line longer than
 * `maxFrameBytes` is reported once and then skipped up to its newline without being buffered, so a
 * hostile peer cannot make us hold more than one bound's worth of bytes.
 */
export class LineFramer {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside an over-long line: drop bytes until the next newline. */
  private discarding = false;

  constructor(
    private readonly maxFrameBytes: number,
    private readonly onFrame: (frame: InboundFrame) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.hold(chunk, start);
        return;
      }
      if (this.discarding) {
        this.discarding = false;
      } else if (this.pendingBytes + (newline - start) > this.maxFrameBytes) {
        this.dropPending();
        this.onFrame({ kind: "oversize", limitBytes: this.maxFrameBytes });
      } else {
        this.emitLine(this.takeLine(chunk, start, newline));
      }
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without its newline still counts as a frame. */
  end(): void {
    if (this.discarding || this.pendingBytes === 0) {
      this.dropPending();
      this.discarding = false;
      return;
    }
    const line = Buffer.concat(this.parts, this.pendingBytes);
    this.dropPending();
    this.emitLine(line);
  }

  private hold(chunk: Buffer, start: number): void {
    if (this.discarding) return;
    const length = chunk.length - start;
    if (this.pendingBytes + length > this.maxFrameBytes) {
      this.dropPending();
      this.discarding = true;
      this.onFrame({ kind: "oversize", limitBytes: this.maxFrameBytes });
      return;
    }
    this.parts.push(chunk.subarray(start));
    this.pendingBytes += length;
  }

  private takeLine(chunk: Buffer, start: number, end: number): Buffer {
    if (this.pendingBytes === 0) return chunk.subarray(start, end);
    this.parts.push(chunk.subarray(start, end));
    const line = Buffer.concat(this.parts, this.pendingBytes + (end - start));
    this.dropPending();
    return line;
  }

  private emitLine(raw: Buffer): void {
    const line =
      raw.length > 0 && raw[raw.length - 1] === CARRIAGE_RETURN ? raw.subarray(0, raw.length - 1) : raw;
    // Blank lines carry no message; skipping them is what every stdio peer expects.
    if (line.length === 0) return;
    if (!isUtf8(line)) {
      this.onFrame({ kind: "invalid-utf8" });
      return;
    }
    this.onFrame({ kind: "text", text: line.toString("utf8") });
  }

  private dropPending(): void {
    this.parts = [];
    this.pendingBytes = 0;
  }
}
