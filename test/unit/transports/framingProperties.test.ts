import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InboundFrame } from "../../../src/engine/rpc/frames.js";
import { exitStatus } from "../../../src/transports/childServer.js";
import { LineFramer } from "../../../src/transports/lineFramer.js";

function frame(chunks: Buffer[], max: number): InboundFrame[] {
  const out: InboundFrame[] = [];
  const framer = new LineFramer(max, (f) => out.push(f));
  for (const c of chunks) framer.push(c);
  return out;
}

/** Splits `bytes` at the given cut points (positions taken modulo the length). */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort(
    (a, b) => a - b,
  );
  const chunks: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(start, p));
    start = p;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const line = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
  .filter((s) => !s.includes("\n") && !s.includes("\r"));

describe("LineFramer properties", () => {
  it("the frames do not depend on how the bytes were chunked", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => l + "\n").join(""), "utf8");
        const expected = lines.map((l) => ({ kind: "text", text: l }));
        expect(frame(cut(bytes, cuts), 1 << 20)).toEqual(expected);
      }),
    );
  });

  it("every line over the bound becomes exactly one oversize frame, in place, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            line,
            fc.string({ minLength: 33, maxLength: 120 }).map((s) => s.replace(/[\r\n]/g, "x")),
          ),
          {
            maxLength: 10,
          },
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => l + "\n").join(""), "utf8");
          const expected = lines.map((l) =>
            Buffer.byteLength(l, "utf8") > 32
              ? { kind: "oversize", limitBytes: 32 }
              : { kind: "text", text: l },
          );
          expect(frame(cut(bytes, cuts), 32)).toEqual(expected);
        },
      ),
    );
  });
});

describe("exitStatus", () => {
  it.each([
    { code: 0, signal: null, status: 0 },
    { code: 3, signal: null, status: 3 },
    { code: null, signal: "SIGTERM" as const, status: 143 },
    { code: null, signal: "SIGKILL" as const, status: 137 },
    { code: null, signal: "SIGINT" as const, status: 130 },
  ])("code $code, signal $signal → $status", ({ code, signal, status }) => {
    expect(exitStatus(code, signal)).toBe(status);
  });
});
