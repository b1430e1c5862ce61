// The audit page's search: times as the form takes them, which events match, newest first and bounded.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventMatches, parseAuditQuery, parseTime, searchEvents } from "../../../src/dashboard/auditLogs.js";

describe("parseTime", () => {
  it("reads ISO 8601, UTC when no zone is given", () => {
    expect(parseTime("2026-11-30T01:09:38.024Z", false)).toBe(Date.UTC(2026, 10, 30, 1, 9, 38, 24));
    expect(parseTime("2026-11-30T01:09", false)).toBe(Date.UTC(2026, 10, 30, 1, 9));
    expect(parseTime("2026-11-30T03:09+02:00", false)).toBe(Date.UTC(2026, 10, 30, 1, 9));
    expect(parseTime("2026-11-30", false)).toBe(Date.UTC(2026, 10, 30));
  });

  it("a bare date as the end of a range is the end of that day", () => {
    expect(parseTime("2026-11-30", true)).toBe(Date.UTC(2026, 11, 1));
  });

  it("refuses anything else", () => {
    for (const t of ["yesterday", "30/11/2026", "2026-13-01", "2026-11-30 01:09", ""]) {
      expect(parseTime(t, false)).toBeNull();
    }
  });
});

describe("parseAuditQuery", () => {
  it("reports unreadable times and unknown logs", () => {
    const { problems } = parseAuditQuery(new URLSearchParams("from=soon&log=7"), 2);
    expect(problems).toHaveLength(2);
    const ok = parseAuditQuery(new URLSearchParams("log=1&tool=x&code=E_TOOL_DENIED"), 2);
    expect(ok.problems).toEqual([]);
    expect(ok.query).toMatchObject({ log: 1, tool: "x", code: "E_TOOL_DENIED", from: null, to: null });
  });
});

describe("eventMatches", () => {
  const q = { log: null, tool: "", code: "", client: "", from: null, to: null };
  const call = { event: "tools/call", tool: "Get-Env", code: "E_TOOL_DENIED", client: "alice", warnings: [] };
  const list = {
    event: "tools/list",
    hidden_tools: [{ tool: "write_file", code: "E_TOOL_NOT_ALLOWED" }],
  };

  it("tool and client by substring, ignoring case; code exactly, ignoring case", () => {
    expect(eventMatches(call, 0, { ...q, tool: "get-" })).toBe(true);
    expect(eventMatches(call, 0, { ...q, code: "e_tool_denied" })).toBe(true);
    expect(eventMatches(call, 0, { ...q, code: "E_TOOL" })).toBe(false);
    expect(eventMatches(call, 0, { ...q, client: "ALI" })).toBe(true);
    expect(eventMatches(call, 0, { ...q, client: "bob" })).toBe(false);
  });

  it("a list event matches through the tools it hid", () => {
    expect(eventMatches(list, 0, { ...q, tool: "write" })).toBe(true);
    expect(eventMatches(list, 0, { ...q, code: "E_TOOL_NOT_ALLOWED" })).toBe(true);
  });

  it("time: from inclusive, to exclusive; an event without a time never matches a range", () => {
    expect(eventMatches(call, 100, { ...q, from: 100, to: 101 })).toBe(true);
    expect(eventMatches(call, 101, { ...q, from: 100, to: 101 })).toBe(false);
    expect(eventMatches(call, NaN, { ...q, from: 0 })).toBe(false);
  });
});

describe("searchEvents", () => {
  it("newest first across logs, bounded, counting every match; unreadable lines are skipped", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-dash-audit-"));
    const line = (i: number): string =>
      JSON.stringify({ seq: i, time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), tool: `t${i}` });
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    writeFileSync(a, [1, 3, 5].map(line).join("\n") + "\nnot json\n");
    writeFileSync(b, [2, 4, 6, 7].map(line).join("\n") + "\n");
    const q = { log: null, tool: "", code: "", client: "", from: null, to: null };
    const r = searchEvents([a, b, join(dir, "missing")], q, 3);
    expect(r.matched).toBe(7);
    expect(r.events.map((e) => e.event["tool"])).toEqual(["t7", "t6", "t5"]);
    expect(r.events[0]).toMatchObject({ log: 1, line: 4 });
    expect(r.unreadable).toEqual([2]);
    expect(searchEvents([a, b], { ...q, log: 0 }, 10).events.map((e) => e.line)).toEqual([3, 2, 1]);
  });
});
