// parseChainedLine reads a line written as JSON.stringify writes it the cheap way (the native parser, the
// value written again and compared); whatever the way, it must judge every line as the strict reading alone
// does: duplicates and depth refused, other spellings read. Also fileLines' chunks and its `end`, and the
// pauses of verifyChainSteps.
import { closeSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileLines, openAuditForReading } from "../../../src/audit/auditFile.js";
import { AUDIT_GENESIS, chainedLine, lineHash, parseChainedLine } from "../../../src/audit/chain.js";
import { CHAIN_STEP_LINES, verifyChainSteps } from "../../../src/audit/verifyChain.js";
import { parseStrictJson } from "../../../src/engine/json/strictJson.js";

const HEX = "b".repeat(64);

/** What parseChainedLine decided before it had a cheap way: the strict reading, then the same checks. */
function strictReading(text: string): { ok: true; event: unknown } | { ok: false } {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) return { ok: false };
  const e = parsed.value as Record<string, unknown>;
  if (typeof e !== "object" || e === null || Array.isArray(e)) return { ok: false };
  if (typeof e.seq !== "number" || !Number.isSafeInteger(e.seq) || e.seq < 1) return { ok: false };
  if (typeof e.prev !== "string" || !/^[0-9a-f]{64}$/.test(e.prev)) return { ok: false };
  if (!Object.hasOwn(e, "policy_digest")) return { ok: false };
  const d = e.policy_digest;
  if (d !== null && (typeof d !== "string" || !/^[0-9a-f]{64}$/.test(d))) return { ok: false };
  return { ok: true, event: e };
}

function sameJudgement(text: string): void {
  const fast = parseChainedLine(text);
  const strict = strictReading(text);
  expect(fast.ok).toBe(strict.ok);
  if (fast.ok && strict.ok) expect(fast.event).toStrictEqual(strict.event);
}

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);
const line = (members: string): string => `{"seq":1,"prev":"${HEX}","policy_digest":null,${members}}`;

describe("parseChainedLine", () => {
  it("judges lines as the strict reading does, whether written as JSON.stringify writes them or not", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (members, spaced) => {
        const event = { seq: 1, prev: HEX, policy_digest: null, ...members };
        sameJudgement(spaced ? JSON.stringify(event, null, 1).replace(/\n/g, " ") : JSON.stringify(event));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a member name given twice, at the top or nested, however the rest is written", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), fc.jsonValue(), fc.boolean(), (name, a, b, deep) => {
        const twice = `${JSON.stringify(name)}:${JSON.stringify(a)},${JSON.stringify(name)}:${JSON.stringify(b)}`;
        const text = line(deep ? `"args":{${twice}}` : twice.replace(/^"(seq|prev|policy_digest)"/, '"x$1"'));
        // Unless the two names are the chain's own fields, the text repeats one name: refused.
        expect(parseChainedLine(text).ok).toBe(false);
        sameJudgement(text);
      }),
      { numRuns: 300 },
    );
    expect(parseChainedLine(line('"a":1,"a":1')).ok).toBe(false);
    expect(parseChainedLine(line('"a":{"b":[{"c":1,"c":1}]}')).ok).toBe(false);
  });

  it("nests 64 deep and no deeper, as the strict reading counts it", () => {
    expect(parseChainedLine(line(`"a":${nested(63)}`)).ok).toBe(true);
    expect(parseChainedLine(line(`"a":${nested(64)}`)).ok).toBe(false);
    sameJudgement(line(`"a":${nested(63)}`));
    sameJudgement(line(`"a":${nested(64)}`));
    sameJudgement(line(`"a":${nested(100_000)}`));
  });

  it("reads other spellings the strict way: spaces, 1.0, escapes written otherwise, -0", () => {
    for (const members of ['"a" : 1', '"a":1.0', '"a":"\\u0041"', '"a":-0', '"a":1e2', '"\\u0061":1']) {
      expect(parseChainedLine(line(members)).ok).toBe(true);
      sameJudgement(line(members));
    }
    expect(parseChainedLine(`{"seq":1,"prev":"${"B".repeat(64)}","policy_digest":null}`).ok).toBe(false);
    expect(parseChainedLine(`{"seq":1,"prev":"${HEX}","policy_digest":"${"A".repeat(64)}"}`).ok).toBe(false);
  });
});

const dir = mkdtempSync(join(tmpdir(), "tg-chain-line-"));

function linesOf(content: string, end?: number): string[] {
  const path = join(dir, `f-${Math.random().toString(16).slice(2)}`);
  writeFileSync(path, content);
  const fd = openAuditForReading(path);
  try {
    return [...fileLines(fd, end)].map((l) => `${l.number}:${l.terminated ? "" : "!"}${l.bytes.toString()}`);
  } finally {
    closeSync(fd);
  }
}

describe("fileLines", () => {
  it("gives lines across chunk boundaries whole, and the unterminated last one as such", () => {
    const long = "x".repeat(700_000);
    expect(linesOf(`a\n${long}\nb\nc`)).toEqual(["1:a", `2:${long}`, "3:b", "4:!c"]);
  });

  it("reads no further than `end`", () => {
    expect(linesOf("one\ntwo\nthree\n", 8)).toEqual(["1:one", "2:two"]);
    expect(linesOf("one\ntwo\nthree\n", 6)).toEqual(["1:one", "2:!tw"]);
  });
});

describe("verifyChainSteps", () => {
  it("pauses every CHAIN_STEP_LINES lines and reports as verifyChain does", () => {
    let head = { seq: 0, hash: AUDIT_GENESIS };
    const lines: string[] = [];
    for (let i = 0; i < CHAIN_STEP_LINES * 3 + 5; i++) {
      const text = chainedLine(JSON.stringify({ policy_digest: null, i }), head);
      head = { seq: head.seq + 1, hash: lineHash(text) };
      lines.push(text);
    }
    const path = join(dir, "chain.jsonl");
    writeFileSync(path, lines.map((l) => l + "\n").join(""));
    const fd = openAuditForReading(path);
    try {
      const steps = verifyChainSteps(fileLines(fd));
      let pauses = 0;
      for (let step = steps.next(); ; step = steps.next()) {
        if (step.done === true) {
          expect(step.value).toMatchObject({ ok: true, events: lines.length, head: head.hash });
          break;
        }
        pauses++;
      }
      expect(pauses).toBe(3);
    } finally {
      closeSync(fd);
    }
  });
});
