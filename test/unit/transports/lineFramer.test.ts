import { describe, expect, it } from "vitest";
import type { InboundFrame } from "../../../src/engine/rpc/frames.js";
import { LineFramer } from "../../../src/transports/lineFramer.js";

function framesOf(chunks: Array<string | Buffer>, maxFrameBytes = 64, end = false): InboundFrame[] {
  const frames: InboundFrame[] = [];
  const framer = new LineFramer(maxFrameBytes, (f) => frames.push(f));
  for (const chunk of chunks) framer.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  if (end) framer.end();
  return frames;
}

const text = (t: string): InboundFrame => ({ kind: "text", text: t });

describe("LineFramer", () => {
  it.each([
    { name: "one line", chunks: ['{"a":1}\n'], expected: [text('{"a":1}')] },
    { name: "two lines in one chunk", chunks: ["a\nb\n"], expected: [text("a"), text("b")] },
    { name: "a line split over three chunks", chunks: ["ab", "cd", "ef\n"], expected: [text("abcdef")] },
    { name: "CRLF endings", chunks: ["a\r\nb\r\n"], expected: [text("a"), text("b")] },
    { name: "blank lines are skipped", chunks: ["\n\r\na\n\n"], expected: [text("a")] },
    { name: "no newline yet: nothing", chunks: ["abc"], expected: [] },
  ])("$name", ({ chunks, expected }) => {
    expect(framesOf(chunks)).toEqual(expected);
  });

  it("keeps a multi-byte character split between chunks intact", () => {
    const bytes = Buffer.from("é€😀\n", "utf8");
    const chunks = [...bytes].map((b) => Buffer.from([b]));
    expect(framesOf(chunks)).toEqual([text("é€😀")]);
  });

  it("accepts a line of exactly the bound and rejects one byte more", () => {
    expect(framesOf(["x".repeat(8) + "\n"], 8)).toEqual([text("x".repeat(8))]);
    expect(framesOf(["x".repeat(9) + "\n"], 8)).toEqual([{ kind: "oversize", limitBytes: 8 }]);
  });

  it("reports an over-long line once, discards it to its newline, and reads the next line", () => {
    const chunks = ["x".repeat(50), "y".repeat(50), "z".repeat(50), "tail\nnext\n"];
    expect(framesOf(chunks, 64)).toEqual([{ kind: "oversize", limitBytes: 64 }, text("next")]);
  });

  it("reports an over-long line that completes inside one chunk", () => {
    expect(framesOf(["ok\n" + "x".repeat(100) + "\nafter\n"], 64)).toEqual([
      text("ok"),
      { kind: "oversize", limitBytes: 64 },
      text("after"),
    ]);
  });

  it("does not hold the bytes of an over-long line (memory stays bounded)", () => {
    const frames: InboundFrame[] = [];
    const framer = new LineFramer(1024, (f) => frames.push(f));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 200; i++) framer.push(chunk); // 12.5 MiB without a newline
    framer.push(Buffer.from("\nafter\n"));
    expect(frames).toEqual([{ kind: "oversize", limitBytes: 1024 }, text("after")]);
    // The framer keeps no reference to discarded chunks.
    expect((framer as unknown as { pendingBytes: number }).pendingBytes).toBe(0);
  });

  it("marks a line that is not UTF-8 and goes on", () => {
    expect(framesOf([Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), "ok\n"])).toEqual([
      { kind: "invalid-utf8" },
      text("ok"),
    ]);
  });

  it("delivers a last line without newline when the stream ends", () => {
    expect(framesOf(["a\nlast"], 64, true)).toEqual([text("a"), text("last")]);
  });

  it("does not deliver the rest of an over-long line when the stream ends", () => {
    expect(framesOf(["x".repeat(100)], 64, true)).toEqual([{ kind: "oversize", limitBytes: 64 }]);
  });
});
