// Receipts and published checkpoints: what a party outside the gateway holds proves a decision is in the
// signed log, or shows the lines removed from its end that the log alone cannot show.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineHash } from "../../../src/audit/chain.js";
import { compareExpected, readExpectedCheckpoint } from "../../../src/audit/expectedCheckpoint.js";
import { RECEIPT_META_KEY, withReceipt, type Receipt } from "../../../src/audit/receipt.js";
import { verifyReceipt } from "../../../src/audit/verifyReceipt.js";
import { verifySignedFile } from "../../../src/audit/verifySigned.js";
import { callEvent, rechain, signedSink, signer } from "./signedLogHelpers.js";

const linesOf = (path: string): string[] => readFileSync(path, "utf8").trimEnd().split("\n");

/** a, b, checkpoint (published), c, d, checkpoint (published): with the receipts of a..d. */
function session() {
  const dir = mkdtempSync(join(tmpdir(), "tg-receipts-"));
  const path = join(dir, "audit.jsonl");
  const key = signer();
  const published: string[] = [];
  const receipts: Receipt[] = [];
  const record = (
    sink: ReturnType<typeof signedSink>,
    tool: string,
    decision: "allow" | "deny" = "allow",
  ) => {
    const at = sink.write(callEvent(tool, decision));
    receipts.push({ log_id: at.log_id, seq: at.seq, hash: at.hash, decision });
  };
  for (const tools of [
    ["a", "b"],
    ["c", "d"],
  ]) {
    const sink = signedSink(path, key);
    for (const t of tools) record(sink, t, t === "b" ? "deny" : "allow");
    sink.close();
    const checkpoint = join(dir, `cp${published.length}.json`);
    writeFileSync(checkpoint, linesOf(path).at(-1)! + "\n");
    published.push(checkpoint);
  }
  const pem = key.keys.values().next().value!.export({ type: "spki", format: "pem" }) as string;
  return { dir, path, key, pem, published, receipts, lines: linesOf(path) };
}

describe("receipts", () => {
  it("carry four fields and nothing else, added to a result's _meta beside what is there", () => {
    const receipt = { log_id: "a".repeat(64), seq: 3, hash: "b".repeat(64), decision: "allow" };
    const result = { content: [], _meta: { other: 1 } };
    expect(withReceipt(result, receipt)).toEqual({
      content: [],
      _meta: { other: 1, [RECEIPT_META_KEY]: receipt },
    });
    expect(result._meta).toEqual({ other: 1 });
    expect(withReceipt({ _meta: "odd" }, receipt)).toEqual({ _meta: "odd" });
    expect(withReceipt({ content: [] }, null)).toEqual({ content: [] });
  });

  it("a receipt covered by a checkpoint is proven (the receipt alone, or the whole answer)", () => {
    const s = session();
    const verdict = verifyReceipt({ receipt: s.receipts[1], keys: [s.pem], logs: [s.path] });
    expect(verdict).toMatchObject({ ok: true, line: 2, checkpoint: { line: 6, covers: 5 } });
    const answer = { content: [], _meta: { [RECEIPT_META_KEY]: s.receipts[3] } };
    expect(verifyReceipt({ receipt: answer, keys: [s.pem], logs: [s.path] })).toMatchObject({
      ok: true,
      line: 5,
    });
  });

  it("each way it is refused has its own code", () => {
    const s = session();
    const check = (receipt: unknown, logs = [s.path]) => verifyReceipt({ receipt, keys: [s.pem], logs });
    // The call's event cut from the end (with the checkpoint after it).
    writeFileSync(s.path, s.lines.slice(0, 4).join("\n") + "\n");
    expect(check(s.receipts[3])).toMatchObject({ ok: false, code: "E_RECEIPT_CUT" });
    // Not covered by a checkpoint yet.
    expect(check(s.receipts[2])).toMatchObject({ ok: false, code: "E_RECEIPT_UNSIGNED" });
    // A receipt altered: its decision, its hash.
    writeFileSync(s.path, s.lines.join("\n") + "\n");
    expect(check({ ...s.receipts[1], decision: "allow" })).toMatchObject({ code: "E_RECEIPT_DECISION" });
    expect(check({ ...s.receipts[1], hash: "0".repeat(64) })).toMatchObject({ code: "E_RECEIPT_MISMATCH" });
    expect(check({ ...s.receipts[1], log_id: "0".repeat(64) })).toMatchObject({
      code: "E_AUDIT_LOG_UNKNOWN",
    });
    expect(check({ seq: "1" })).toMatchObject({ code: "E_RECEIPT_INPUT" });
    // The log rewritten after the event (and its chain rebuilt): its line is not the one receipted.
    const rewritten = s.lines.slice(0, 3).concat(JSON.stringify({ ...JSON.parse(s.lines[3]!), tool: "x" }));
    writeFileSync(s.path, rechain(rewritten));
    expect(check(s.receipts[2])).toMatchObject({ code: "E_RECEIPT_MISMATCH" });
    expect(check(s.receipts[0], [join(s.dir, "missing.jsonl")])).toMatchObject({ code: "E_AUDIT_READ" });
  });
});

describe("published checkpoints (--expect-checkpoint)", () => {
  const expectOn = (s: ReturnType<typeof session>, which: number) => {
    const expected = readExpectedCheckpoint(s.published[which]!, s.key.keys);
    return compareExpected(verifySignedFile(s.path, s.key.keys, [expected.seq]), expected);
  };

  it("a log that still has it", () => {
    const s = session();
    expect(expectOn(s, 0)).toBeNull();
    expect(expectOn(s, 1)).toBeNull();
  });

  it("lines deleted from the end after it was published: E_AUDIT_TRUNCATED, naming the checkpoint left", () => {
    const s = session();
    writeFileSync(s.path, s.lines.slice(0, 4).join("\n") + "\n");
    expect(expectOn(s, 1)).toMatchObject({
      code: "E_AUDIT_TRUNCATED",
      title: "truncated after checkpoint seq 3",
    });
  });

  it("the last checkpoint removed (the events it signed still there): E_CHECKPOINT_MISSING", () => {
    const s = session();
    writeFileSync(s.path, s.lines.slice(0, 5).join("\n") + "\n");
    expect(expectOn(s, 1)).toMatchObject({ code: "E_CHECKPOINT_MISSING" });
  });

  it("the log rewritten from before it: E_CHECKPOINT_DIVERGED", () => {
    const s = session();
    const lines = [...s.lines.slice(0, 5), JSON.stringify(callEvent("e"))];
    writeFileSync(s.path, rechain(lines));
    expect(expectOn(s, 1)).toMatchObject({ code: "E_CHECKPOINT_DIVERGED" });
  });

  it("a published checkpoint that does not verify is bad input, not a finding about the log", () => {
    const s = session();
    const other = signer();
    expect(() => readExpectedCheckpoint(s.published[0]!, other.keys)).toThrow(
      expect.objectContaining({ code: "E_CHECKPOINT_KEY" }),
    );
    writeFileSync(s.published[0]!, "{}");
    expect(() => readExpectedCheckpoint(s.published[0]!, s.key.keys)).toThrow(
      expect.objectContaining({ code: "E_CHECKPOINT_MALFORMED" }),
    );
    expect(lineHash(s.lines[0]!)).toBe(s.receipts[0]!.log_id);
  });
});
