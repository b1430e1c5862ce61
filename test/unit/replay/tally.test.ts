import { describe, expect, it } from "vitest";
import { ReplayTally } from "../../../src/replay/tally.js";
import type { Verdict } from "../../../src/replay/redecide.js";

const rule = (value: string) => ({ layer: "policy", kind: "allow", value });
const allow: Verdict = { outcome: "allow", code: null, rule: rule("read") };
const schema: Verdict = {
  outcome: "deny",
  code: "E_ARG_SCHEMA",
  rule: { layer: "policy", kind: "schema", value: "read" },
};
const hidden: Verdict = { outcome: "hidden", code: "E_TOOL_NOT_ALLOWED", rule: null };
const at = (tool: string, principal = "ci", server: string | null = "fs") => ({ server, tool, principal });

describe("ReplayTally", () => {
  it("counts per server × tool × principal and verdict, and what stayed", () => {
    const t = new ReplayTally();
    t.call(at("read"), allow, schema);
    t.call(at("read"), allow, schema);
    t.call(at("read", "bot"), allow, schema);
    t.call(at("read"), allow, allow);
    t.call(at("read"), schema, hidden); // refused before and after: unchanged, whatever the code
    const diff = t.report(() => true);
    expect(diff.newly_denied).toEqual([
      { ...at("read", "bot"), count: 1, code: "E_ARG_SCHEMA", rule: schema.rule, name_only: 0 },
      { ...at("read"), count: 2, code: "E_ARG_SCHEMA", rule: schema.rule, name_only: 0 },
    ]);
    expect(diff.newly_allowed).toEqual([]);
    expect(diff.unchanged).toBe(2);
    expect(diff.calls).toBe(5);
  });

  it("newly allowed carries what refused the calls before and the rule that now admits them", () => {
    const t = new ReplayTally();
    t.call(at("write"), hidden, allow);
    expect(t.report(() => true).newly_allowed).toEqual([
      {
        ...at("write"),
        count: 1,
        code: "E_TOOL_NOT_ALLOWED",
        rule: null,
        allowed_by: allow.rule,
        name_only: 0,
      },
    ]);
  });

  it("a call re-decided by name only keeps its verdict unless the name stage changes it, and says so", () => {
    const t = new ReplayTally();
    t.call(at("read"), allow, "name-only"); // visible still: unchanged
    t.call(at("read"), schema, "name-only"); // refused at the call stage before: unchanged
    t.call(at("write"), hidden, "name-only"); // visible now: counted allowed, flagged
    t.call(at("edit"), allow, hidden); // hidden by name now
    const diff = t.report((_, tool) => tool !== "edit");
    expect(diff.name_only).toBe(3);
    expect(diff.unchanged).toBe(2);
    expect(diff.newly_allowed.map((c) => [c.tool, c.count, c.name_only])).toEqual([["write", 1, 1]]);
    expect(diff.newly_denied.map((c) => [c.tool, c.code])).toEqual([["edit", "E_TOOL_NOT_ALLOWED"]]);
  });

  it("tools shown before (called) or hidden by a list become newly hidden or visible by the candidate's names", () => {
    const t = new ReplayTally();
    t.call(at("read"), allow, allow);
    t.call(at("edit"), allow, allow);
    t.list({ server: "fs", principal: "ci" }, ["write", "move"]);
    t.list({ server: "fs", principal: "ci" }, ["edit"]); // a call reached it: it was shown to this principal
    const diff = t.report((_, tool) => tool === "read" || tool === "write");
    expect(diff.newly_hidden).toEqual([at("edit")]);
    expect(diff.newly_visible).toEqual([at("write")]);
    expect(diff.lists).toBe(2);
  });
});
