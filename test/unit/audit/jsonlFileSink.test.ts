import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argumentsDigest } from "../../../src/audit/argsDigest.js";
import type { ToolCallEvent } from "../../../src/audit/events.js";
import { JsonlFileSink } from "../../../src/audit/jsonlFileSink.js";
import { AUDIT_GENESIS } from "../../../src/audit/chain.js";
import { sha256Hex } from "../../../src/engine/pins/hashes.js";

const event = (tool: string): ToolCallEvent => ({
  time: "2026-01-01T00:00:00.000Z",
  session: "s",
  policy_digest: null,
  request_id: 1,
  event: "tools/call",
  tool,
  decision: "allow",
  code: null,
  rule: null,
  reason: "r",
  warnings: [],
  args_sha256: null,
});

describe("JsonlFileSink", () => {
  it("appends one chained JSON line per event, continuing the chain of what the file already holds", () => {
    const path = join(mkdtempSync(join(tmpdir(), "tg-audit-")), "audit.jsonl");
    const first = new JsonlFileSink(path);
    first.write(event("a"));
    first.close();
    const sink = new JsonlFileSink(path);
    sink.write(event("b"));
    sink.write(event("c"));
    sink.close();
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const parsed = lines.map((l) => JSON.parse(l) as { tool: string; seq: number; prev: string });
    expect(parsed.map((l) => [l.tool, l.seq])).toEqual([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    expect(parsed[0]!.prev).toBe(AUDIT_GENESIS);
    expect(parsed[1]!.prev).toBe(sha256Hex(lines[0]!));
    expect(parsed[2]!.prev).toBe(sha256Hex(lines[1]!));
  });

  it("refuses to extend a log whose last line is not a complete chained event", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-audit-"));
    for (const [name, content] of [
      ["unchained.jsonl", '{"earlier":true}\n'],
      ["cut.jsonl", '{"seq":1,"prev":"' + AUDIT_GENESIS + '","policy_digest":null'],
      ["garbage.jsonl", "not json\n"],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, content);
      expect(() => new JsonlFileSink(path)).toThrow(expect.objectContaining({ code: "E_AUDIT_CHAIN" }));
      expect(readFileSync(path, "utf8")).toBe(content);
    }
  });

  it("throws E_AUDIT_OPEN for a file it cannot open and E_AUDIT_WRITE after close", () => {
    expect(() => new JsonlFileSink("/nonexistent-dir/x/audit.jsonl")).toThrow(
      expect.objectContaining({ code: "E_AUDIT_OPEN" }),
    );
    const sink = new JsonlFileSink(join(mkdtempSync(join(tmpdir(), "tg-audit-")), "a.jsonl"));
    sink.close();
    expect(() => sink.write(event("a"))).toThrow(expect.objectContaining({ code: "E_AUDIT_WRITE" }));
  });

  it("fails writes on a full device", () => {
    // /dev/full accepts the open and fails every write with ENOSPC.
    const sink = new JsonlFileSink("/dev/full");
    expect(() => sink.write(event("a"))).toThrow(expect.objectContaining({ code: "E_AUDIT_WRITE" }));
  });
});

describe("argumentsDigest", () => {
  it("is the SHA-256 of the RFC 8785 form: key order and number spelling do not matter", () => {
    const a = argumentsDigest(JSON.parse('{"b":[1,2],"a":{"y":1e2,"x":"é"}}'));
    const b = argumentsDigest(JSON.parse('{"a":{"x":"é","y":100},"b":[1,2]}'));
    expect(a).toEqual(b);
    expect(a).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), canonical: true });
    expect(argumentsDigest({ a: 1 }).sha256).not.toBe(argumentsDigest({ a: 2 }).sha256);
  });

  it("hashes the canonical text exactly", () => {
    // sha256('{"a":1}')
    expect(argumentsDigest({ a: 1 }).sha256).toBe(
      "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",
    );
  });

  it("is null when the call had no arguments", () => {
    expect(argumentsDigest(undefined).sha256).toBeNull();
  });

  it("still digests arguments RFC 8785 cannot express (an unpaired surrogate), and says so", () => {
    const args = JSON.parse('{"s":"\\ud800"}') as unknown;
    // sha256 of the JSON.stringify form, {"s":"\ud800"}
    expect(argumentsDigest(args)).toEqual({
      sha256: "d06a70a1ca4d3ac4099cd5f35ecbb551be652247e0950c05790e8f0c58010851",
      canonical: false,
    });
  });
});
