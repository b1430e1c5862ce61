// Signed checkpoints: the sink writes them (every N events, at shutdown, linked to each other and to the
// log's first line), and the verifier finds each way of tampering with a signed log by its own code.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signCheckpoint } from "../../../src/audit/checkpoint.js";
import { lineHash } from "../../../src/audit/chain.js";
import { configReloadEvent, recordReload } from "../../../src/audit/reloadEvent.js";
import { verifySignedFile } from "../../../src/audit/verifySigned.js";
import { callEvent, parseLine, rechain, signedSink, signer } from "./signedLogHelpers.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const linesOf = (path: string): string[] => readFileSync(path, "utf8").trimEnd().split("\n");

function newLog(): string {
  return join(mkdtempSync(join(tmpdir(), "tg-signed-")), "audit.jsonl");
}

describe("the signing sink", () => {
  it("writes a checkpoint every N events (after the call's turn), another at close, and each verifies", async () => {
    const path = newLog();
    const key = signer();
    const sink = signedSink(path, key, 3);
    const positions = ["a", "b", "c"].map((t) => sink.write(callEvent(t)));
    // Not on the call's path: nothing signed until the event loop turns.
    expect(linesOf(path)).toHaveLength(3);
    await tick();
    expect(linesOf(path)).toHaveLength(4);
    sink.write(callEvent("d"));
    sink.close();
    const lines = linesOf(path);
    const events = lines.map(parseLine);
    expect(events.map((e) => e.event)).toEqual([
      "tools/call",
      "tools/call",
      "tools/call",
      "checkpoint",
      "tools/call",
      "checkpoint",
    ]);
    const logId = lineHash(lines[0]!);
    expect(positions.map((p) => p.log_id)).toEqual([logId, logId, logId]);
    expect(positions[2]).toEqual({ log_id: logId, seq: 3, hash: lineHash(lines[2]!) });
    expect(events[3]!.checkpoint).toMatchObject({
      log_id: logId,
      seq: 3,
      head: lineHash(lines[2]!),
      prev_checkpoint: null,
    });
    expect(events[5]!.checkpoint).toMatchObject({
      seq: 5,
      prev_checkpoint: lineHash(lines[3]!),
      key_id: key.keyId,
    });
    expect(events[5]!.trigger).toBe("shutdown");
    const report = verifySignedFile(path, key.keys);
    expect(report.chain.ok).toBe(true);
    expect(report.finding).toBeNull();
    expect(report).toMatchObject({ logId, checkpoints: 2, unsigned: 0, last: { line: 6, covers: 5 } });
  });

  it("a second run links its first checkpoint to the last one the file holds", () => {
    const path = newLog();
    const key = signer();
    const first = signedSink(path, key);
    first.write(callEvent("a"));
    first.close();
    const second = signedSink(path, key);
    second.write(callEvent("b"));
    second.close();
    const lines = linesOf(path);
    expect(parseLine(lines[3]!).checkpoint.prev_checkpoint).toBe(lineHash(lines[1]!));
    expect(verifySignedFile(path, key.keys)).toMatchObject({ finding: null, checkpoints: 2 });
  });

  it("a reload's event is followed by a checkpoint (recordReload), on a later turn", async () => {
    const path = newLog();
    const key = signer();
    const sink = signedSink(path, key);
    sink.write(callEvent("a"));
    recordReload(
      sink,
      configReloadEvent({ session: "s", trigger: "SIGHUP", oldDigest: null, newDigest: null }),
      () => {},
    );
    expect(linesOf(path)).toHaveLength(2);
    await tick();
    expect(
      linesOf(path).map((l) =>
        parseLine(l).event === "checkpoint" ? parseLine(l).trigger : parseLine(l).event,
      ),
    ).toEqual(["tools/call", "config_reload", "reload"]);
    sink.close();
    expect(linesOf(path)).toHaveLength(3);
  });

  it("two processes sharing a log: each links its checkpoint to the other's last one", () => {
    const path = newLog();
    const key = signer();
    const one = signedSink(path, key);
    const two = signedSink(path, key);
    one.write(callEvent("a"));
    one.checkpointNow("events");
    two.write(callEvent("b"));
    two.checkpointNow("events");
    one.write(callEvent("c"));
    one.close();
    two.close();
    const lines = linesOf(path);
    expect(lines.map((l) => parseLine(l).event)).toEqual([
      "tools/call",
      "checkpoint",
      "tools/call",
      "checkpoint",
      "tools/call",
      "checkpoint",
    ]);
    expect(parseLine(lines[3]!).checkpoint.prev_checkpoint).toBe(lineHash(lines[1]!));
    expect(parseLine(lines[5]!).checkpoint.prev_checkpoint).toBe(lineHash(lines[3]!));
    expect(verifySignedFile(path, key.keys)).toMatchObject({ finding: null, checkpoints: 3 });
  });

  it("writes no checkpoint when nothing was written since the last", () => {
    const path = newLog();
    const key = signer();
    const sink = signedSink(path, key);
    sink.write(callEvent("a"));
    sink.close();
    signedSink(path, key).close();
    expect(linesOf(path)).toHaveLength(2);
  });
});

describe("verify --key finds each way a signed log was tampered with", () => {
  function signedLog(): { path: string; key: ReturnType<typeof signer>; lines: string[] } {
    const path = newLog();
    const key = signer();
    const sink = signedSink(path, key);
    for (const t of ["a", "b"]) sink.write(callEvent(t));
    sink.checkpoint("reload");
    // checkpoint() is asynchronous; close writes it (trigger shutdown) if it has not run.
    sink.close();
    return { path, key, lines: linesOf(path) };
  }

  it("a checkpoint forged with another key: E_CHECKPOINT_KEY", () => {
    const { path, key, lines } = signedLog();
    const other = signer();
    const cp = parseLine(lines[2]!);
    cp.checkpoint.key_id = other.keyId;
    cp.signature = signCheckpoint(cp.checkpoint, other);
    writeFileSync(path, rechain([...lines.slice(0, 2), JSON.stringify(cp)]));
    const report = verifySignedFile(path, key.keys);
    expect(report.chain.ok).toBe(true);
    expect(report.finding).toMatchObject({
      code: "E_CHECKPOINT_KEY",
      line: 3,
      title: "checkpoint signed by another key",
    });
    expect(report.finding!.message).toContain(other.keyId);
  });

  it("a checkpoint edited after it was signed: E_CHECKPOINT_SIGNATURE", () => {
    const { path, key, lines } = signedLog();
    const cp = parseLine(lines[2]!);
    cp.checkpoint.time = "2020-01-01T00:00:00.000Z";
    writeFileSync(path, rechain([...lines.slice(0, 2), JSON.stringify(cp)]));
    expect(verifySignedFile(path, key.keys).finding).toMatchObject({
      code: "E_CHECKPOINT_SIGNATURE",
      line: 3,
    });
  });

  it("a line before the checkpoint rewritten and the chain rebuilt: E_CHECKPOINT_MISMATCH", () => {
    const { path, key, lines } = signedLog();
    const edited = lines[1]!.replace('"decision":"allow"', '"decision":"deny"');
    writeFileSync(path, rechain([lines[0]!, edited, lines[2]!]));
    const report = verifySignedFile(path, key.keys);
    expect(report.chain.ok).toBe(true);
    expect(report.finding).toMatchObject({ code: "E_CHECKPOINT_MISMATCH", line: 3 });
    expect(report.finding!.message).toContain("rewritten");
  });

  it("the first line rewritten: the checkpoint is for another log (E_CHECKPOINT_MISMATCH)", () => {
    const { path, key, lines } = signedLog();
    writeFileSync(path, rechain([lines[0]!.replace('"tool":"a"', '"tool":"z"'), ...lines.slice(1)]));
    expect(verifySignedFile(path, key.keys).finding?.message).toContain("first line");
  });

  it("a checkpoint removed from the middle and the chain rebuilt: the next one's head no longer fits", () => {
    const path = newLog();
    const key = signer();
    const sink = signedSink(path, key, 1);
    sink.write(callEvent("a"));
    sink.close();
    const again = signedSink(path, key, 1);
    again.write(callEvent("b"));
    again.close();
    const lines = linesOf(path);
    writeFileSync(path, rechain([lines[0]!, lines[2]!, lines[3]!]));
    expect(verifySignedFile(path, key.keys).finding?.code).toBe("E_CHECKPOINT_MISMATCH");
  });

  it("a checkpoint that names the wrong one before it (signed with the key all the same): E_CHECKPOINT_LINK", () => {
    const path = newLog();
    const key = signer();
    for (const t of ["a", "b"]) {
      const sink = signedSink(path, key);
      sink.write(callEvent(t));
      sink.close();
    }
    const lines = linesOf(path);
    const cp = parseLine(lines[3]!);
    cp.checkpoint.prev_checkpoint = null;
    cp.signature = signCheckpoint(cp.checkpoint, key);
    writeFileSync(path, rechain([...lines.slice(0, 3), JSON.stringify(cp)]));
    expect(verifySignedFile(path, key.keys).finding).toMatchObject({ code: "E_CHECKPOINT_LINK", line: 4 });
  });

  it("events after the last checkpoint are counted as unsigned; a log without one has no signature at all", () => {
    const { path, key, lines } = signedLog();
    writeFileSync(path, rechain([...lines, JSON.stringify(callEvent("late"))]));
    expect(verifySignedFile(path, key.keys)).toMatchObject({ finding: null, unsigned: 1, checkpoints: 1 });
    writeFileSync(path, rechain(lines.slice(0, 2)));
    expect(verifySignedFile(path, key.keys)).toMatchObject({ finding: null, last: null, unsigned: 2 });
  });
});
