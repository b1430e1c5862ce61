import { closeSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileLines, openAuditForReading } from "../../../src/audit/auditFile.js";
import { AUDIT_GENESIS } from "../../../src/audit/chain.js";
import type { AuditEvent, ToolCallEvent } from "../../../src/audit/events.js";
import { JsonlFileSink } from "../../../src/audit/jsonlFileSink.js";
import { verifyChain, type ChainReport } from "../../../src/audit/verifyChain.js";
import { sha256Hex } from "../../../src/engine/pins/hashes.js";

const dir = mkdtempSync(join(tmpdir(), "tg-chain-"));
let counter = 0;
const freshPath = (): string => join(dir, `log-${++counter}.jsonl`);

const call = (tool: string, id: number): ToolCallEvent => ({
  time: "2026-01-01T00:00:00.000Z",
  session: "s",
  policy_digest: "a".repeat(64),
  request_id: id,
  event: "tools/call",
  tool,
  decision: id % 3 === 0 ? "deny" : "allow",
  code: id % 3 === 0 ? "E_TOOL_DENIED" : null,
  rule: null,
  reason: "r",
  warnings: [],
  args_sha256: null,
});

/** A log of `n` events written by the sink; returns its lines (without newlines). */
function writeLog(n: number, path = freshPath()): { path: string; lines: string[] } {
  const sink = new JsonlFileSink(path);
  for (let i = 1; i <= n; i++) sink.write(call(`tool_${i}`, i));
  sink.close();
  return { path, lines: readFileSync(path, "utf8").split("\n").slice(0, -1) };
}

function verifyText(content: string | Buffer): ChainReport {
  const path = freshPath();
  writeFileSync(path, content);
  return verifyFile(path);
}

function verifyFile(path: string): ChainReport {
  const fd = openAuditForReading(path);
  try {
    return verifyChain(fileLines(fd));
  } finally {
    closeSync(fd);
  }
}

const joined = (lines: string[]): string => lines.map((l) => l + "\n").join("");

function expectBreak(report: ChainReport): Extract<ChainReport, { ok: false }>["break"] {
  if (report.ok) throw new Error(`expected a broken chain, got ${JSON.stringify(report)}`);
  return report.break;
}

describe("audit verify: an intact log", () => {
  it("reports the count, the last seq and the head (hash of the last line)", () => {
    const { path, lines } = writeLog(5);
    expect(verifyFile(path)).toEqual({
      ok: true,
      events: 5,
      last_seq: 5,
      head: sha256Hex(lines[4]!),
    });
  });

  it("accepts an empty log (no events yet) with the genesis value as head", () => {
    expect(verifyText("")).toEqual({ ok: true, events: 0, last_seq: 0, head: AUDIT_GENESIS });
  });

  it("holds across runs that append, and across two sinks writing the same file in turn", () => {
    const path = freshPath();
    writeLog(2, path);
    const a = new JsonlFileSink(path);
    const b = new JsonlFileSink(path);
    a.write(call("x", 10));
    b.write(call("y", 11));
    a.write(call("z", 12));
    b.write(call("w", 13));
    a.close();
    b.close();
    expect(verifyFile(path)).toMatchObject({ ok: true, events: 6, last_seq: 6 });
  });

  it("reads lines longer than its read buffer", () => {
    const path = freshPath();
    const sink = new JsonlFileSink(path);
    const big: AuditEvent = {
      ...call("big", 1),
      reason: "x".repeat(200_000),
    };
    sink.write(call("a", 1));
    sink.write(big);
    sink.write(call("b", 2));
    sink.close();
    expect(verifyFile(path)).toMatchObject({ ok: true, events: 3 });
  });

  it("keeps the extra fields serve adds, chain fields first", () => {
    const path = freshPath();
    const sink = new JsonlFileSink(path);
    sink.write({ ...call("a", 1), server: "fs", client: "stdio" } as AuditEvent);
    sink.close();
    const line = readFileSync(path, "utf8");
    expect(line.startsWith(`{"seq":1,"prev":"${AUDIT_GENESIS}","time":`)).toBe(true);
    expect(JSON.parse(line)).toMatchObject({ server: "fs", client: "stdio", policy_digest: "a".repeat(64) });
  });
});

describe("audit verify: each kind of tampering is reported at the right line", () => {
  it("an edited line (a decision changed) is named, found through the next line's link", () => {
    const { lines } = writeLog(6);
    lines[2] = lines[2]!.replace('"decision":"deny"', '"decision":"allow"');
    const b = expectBreak(verifyText(joined(lines)));
    expect(b).toMatchObject({ kind: "edited", line: 3, detected_at: 4, expected_seq: 4, found_seq: 4 });
    expect(b.expected_prev).toBe(sha256Hex(lines[2]!));
    expect(b.found_prev).not.toBe(b.expected_prev);
    expect(b.message).toContain("line 3 was changed");
  });

  it("the events verified before the break exclude the edited line", () => {
    const { lines } = writeLog(6);
    lines[2] = lines[2]!.replace('"tool":"tool_3"', '"tool":"tool_x"');
    const report = verifyText(joined(lines));
    expect(report).toMatchObject({ ok: false, events: 2 });
  });

  it("an edit of a line's own prev is told apart from an edit of the line before", () => {
    const { lines } = writeLog(6);
    lines[3] = lines[3]!.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${"b".repeat(64)}"`);
    expect(expectBreak(verifyText(joined(lines)))).toMatchObject({ kind: "edited", line: 4 });
  });

  it("an edit of a line's seq is reported on that line", () => {
    const { lines } = writeLog(6);
    lines[3] = lines[3]!.replace('"seq":4', '"seq":9');
    expect(expectBreak(verifyText(joined(lines)))).toMatchObject({
      kind: "edited",
      line: 4,
      expected_seq: 4,
      found_seq: 9,
    });
  });

  it("a deleted line is a missing link: seq gap and hash mismatch, with the missing seq", () => {
    const { lines } = writeLog(6);
    lines.splice(2, 1);
    const b = expectBreak(verifyText(joined(lines)));
    expect(b).toMatchObject({ kind: "deleted", line: 3, expected_seq: 3, found_seq: 4, missing: [3, 3] });
    expect(b.expected_prev).toBe(sha256Hex(lines[1]!));
  });

  it("several deleted lines, and deleted first lines", () => {
    const { lines } = writeLog(8);
    expect(expectBreak(verifyText(joined([...lines.slice(0, 2), ...lines.slice(5)])))).toMatchObject({
      kind: "deleted",
      line: 3,
      missing: [3, 5],
    });
    expect(expectBreak(verifyText(joined(lines.slice(2))))).toMatchObject({
      kind: "deleted",
      line: 1,
      missing: [1, 2],
      expected_prev: AUDIT_GENESIS,
    });
  });

  it("reordered lines: two swapped, and one moved to the end", () => {
    const { lines } = writeLog(6);
    const swapped = [...lines];
    [swapped[2], swapped[3]] = [swapped[3]!, swapped[2]!];
    expect(expectBreak(verifyText(joined(swapped)))).toMatchObject({
      kind: "reordered",
      line: 3,
      found_seq: 4,
    });
    const moved = [...lines.slice(0, 1), ...lines.slice(2), lines[1]!];
    expect(expectBreak(verifyText(joined(moved)))).toMatchObject({ kind: "reordered", line: 2 });
  });

  it("a repeated line is out of order", () => {
    const { lines } = writeLog(4);
    const repeated = [...lines.slice(0, 3), lines[2]!, lines[3]!];
    expect(expectBreak(verifyText(joined(repeated)))).toMatchObject({
      kind: "reordered",
      line: 4,
      expected_seq: 4,
      found_seq: 3,
    });
  });

  it("a truncated last line (no newline, cut mid-event)", () => {
    const { lines } = writeLog(4);
    const text = joined(lines);
    const cut = text.slice(0, text.length - 20);
    expect(expectBreak(verifyText(cut))).toMatchObject({ kind: "truncated", line: 4 });
    // Only the newline lost: still reported, the line is not vouched for by a terminator.
    expect(expectBreak(verifyText(text.slice(0, -1)))).toMatchObject({ kind: "truncated", line: 4 });
  });

  it("lines that are not chained events: garbage, blank, duplicate keys, invalid UTF-8, no policy_digest", () => {
    const { lines } = writeLog(3);
    const cases: Array<[string | Buffer, number]> = [
      [joined([lines[0]!, "garbage", lines[2]!]), 2],
      [joined([lines[0]!, "", lines[1]!]), 2],
      [joined([lines[0]!.replace('"tool":', '"tool":"x","tool":')]), 1],
      [Buffer.concat([Buffer.from(lines[0]! + "\n"), Buffer.from([0xff, 0xfe, 0x0a])]), 2],
      [joined([lines[0]!.replace(`"policy_digest":"${"a".repeat(64)}",`, "")]), 1],
      [joined(['{"event":"tools/call"}']), 1],
    ];
    for (const [content, line] of cases) {
      expect(expectBreak(verifyText(content))).toMatchObject({ kind: "malformed", line });
    }
  });

  it("property: any changed byte in any line but the last is reported at that line", () => {
    const { lines } = writeLog(5);
    const text = joined(lines);
    const starts = lines.map((_, i) => lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: lines.length - 2 }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (lineIndex, offset, byte) => {
          const bytes = Buffer.from(text, "utf8");
          const at = starts[lineIndex]! + (offset % lines[lineIndex]!.length);
          fc.pre(bytes[at] !== byte);
          bytes[at] = byte;
          const b = expectBreak(verifyText(bytes));
          expect(b.line).toBe(lineIndex + 1);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("JsonlFileSink keeps the chain honest", () => {
  it("refuses events that carry chain fields of their own", () => {
    const sink = new JsonlFileSink(freshPath());
    expect(() => sink.write({ ...call("a", 1), seq: 7 } as AuditEvent)).toThrow(
      expect.objectContaining({ code: "E_AUDIT_WRITE" }),
    );
    sink.close();
  });

  it("refuses to write after another writer left a partial line, rather than chaining past it", () => {
    const { path } = writeLog(2);
    const sink = new JsonlFileSink(path);
    writeFileSync(path, '{"seq":3,"prev":"', { flag: "a" });
    expect(() => sink.write(call("a", 9))).toThrow(expect.objectContaining({ code: "E_AUDIT_CHAIN" }));
    sink.close();
  });

  it("refuses to write after the file shrank under it", () => {
    const { path, lines } = writeLog(3);
    const sink = new JsonlFileSink(path);
    writeFileSync(path, joined(lines.slice(0, 1)));
    expect(() => sink.write(call("a", 9))).toThrow(expect.objectContaining({ code: "E_AUDIT_CHAIN" }));
    sink.close();
  });
});
