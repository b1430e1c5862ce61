// policy suggest's pure parts, one by one: which events are calls, which server, which tools go into
// tools.allow and which are only reported, what a given policy says by name, and that the suggested file
// loads as a v2 policy whatever the names in the log.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { CallOutcome } from "../../../src/audit/events.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { callsOf, type CallRecord, type LogRecord } from "../../../src/cli/policy/suggest/calls.js";
import { judgeNames } from "../../../src/cli/policy/suggest/judge.js";
import { suggestedPolicyYaml } from "../../../src/cli/policy/suggest/policyYaml.js";
import { suggestReport } from "../../../src/cli/policy/suggest/report.js";
import { narrowPolicy } from "../../../src/cli/policy/suggest/narrow.js";
import { narrowedPolicyYaml } from "../../../src/cli/policy/suggest/narrowedYaml.js";
import { decisionView } from "../../../src/config/policyMigrate.js";
import {
  chooseServer,
  exactlyNamed,
  hiddenByName,
  suggestFrom,
} from "../../../src/cli/policy/suggest/tally.js";
import type { LogSource } from "../../../src/cli/policy/suggest/text.js";

const SOURCE: LogSource = { file: "audit.jsonl", events: 9, lastSeq: 9, head: "ab".repeat(32) };
const DIGEST = "cd".repeat(32);

let seconds = 0;
function call(tool: string, decision: CallOutcome = "allow", more: Partial<CallRecord> = {}): CallRecord {
  seconds++;
  return {
    line: seconds,
    tool,
    decision,
    code: null,
    rule: null,
    time: `2026-01-01T00:00:${String(seconds % 60).padStart(2, "0")}.000Z`,
    policyDigest: DIGEST,
    ...more,
  };
}

function record(line: number, event: Record<string, unknown>): LogRecord {
  return {
    line,
    event: {
      seq: line,
      prev: "0".repeat(64),
      time: "2026-01-01T00:00:00.000Z",
      session: "s",
      policy_digest: null,
      request_id: line,
      ...event,
    },
  };
}

const callEvent = (tool: string, extra: Record<string, unknown> = {}) => ({
  event: "tools/call",
  tool,
  decision: "allow",
  code: null,
  rule: null,
  reason: "r",
  warnings: [],
  args_sha256: null,
  ...extra,
});

describe("callsOf", () => {
  it("counts tools/call events only, and in meta mode only calls through the invoke meta tool", () => {
    const read = callsOf([
      record(1, { event: "tools/list", decision: "filtered", shown: 1, hidden: 0, hidden_tools: [] }),
      record(2, callEvent("read_graph")),
      record(3, { event: "request", method: "ping", decision: "deny", code: "E_RATE_LIMIT", rule: null }),
      record(4, callEvent("read_graph", { server: "memory", via: "mcp_invoke_memory" })),
      record(5, callEvent("open_nodes", { server: "memory", via: "mcp_describe_memory" })),
      record(6, callEvent("mcp_search_memory", { server: "memory", via: "mcp_search_memory" })),
    ]);
    expect(read).toMatchObject({
      ok: true,
      calls: [
        { line: 2, tool: "read_graph" },
        { line: 4, tool: "read_graph", server: "memory" },
      ],
    });
    if (read.ok) expect("server" in read.calls[0]!).toBe(false);
  });

  it.each([
    [{ tool: 7 }, "`tool` is not a string"],
    [{ decision: "maybe" }, "`decision` is not one of"],
    [{ code: 1 }, "`code` is neither"],
    [{ rule: { layer: "policy", kind: "tools.deny" } }, "`rule` is neither"],
    [{ rule: [] }, "`rule` is neither"],
    [{ time: null }, "`time` is not a string"],
    [{ server: 3 }, "`server` is neither"],
  ])("a call event with %j is bad input naming its line", (extra, problem) => {
    const read = callsOf([record(1, callEvent("a")), record(2, callEvent("b", extra))]);
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.line).toBe(2);
      expect(read.problem).toContain(problem);
    }
  });
});

describe("hiddenByName", () => {
  it.each([
    ["allow", null, false],
    ["would-deny", "E_ARG_SCHEMA", false],
    ["deny", "E_APPROVAL_REQUIRED", false],
    ["hidden", null, true],
    ["would-hide", "E_TOOL_DENIED", true],
    // enforcement.denied_tools: explain records a refusal by name as a deny.
    ["would-deny", "E_TOOL_NOT_ALLOWED", true],
    ["deny", "E_TOOL_DENIED", true],
    ["would-deny", "E_TOOL_DRIFT", true],
  ] as const)("%s %s → %s", (decision, code, hidden) => {
    expect(hiddenByName({ decision, code })).toBe(hidden);
  });
});

describe("chooseServer", () => {
  const wrapped = [call("a"), call("b")];
  const served = [call("a", "allow", { server: "fs" }), call("x", "hidden", { server: null })];
  const two = [...served, call("b", "allow", { server: "memory" })];
  it("wrap's logs name no server; one server is taken; several need --server", () => {
    expect(chooseServer(wrapped, undefined)).toEqual({ ok: true, server: null });
    expect(chooseServer(served, undefined)).toEqual({ ok: true, server: "fs" });
    expect(chooseServer(two, undefined)).toEqual({
      ok: false,
      problem: "several",
      servers: ["fs", "memory"],
    });
    expect(chooseServer(two, "memory")).toEqual({ ok: true, server: "memory" });
    expect(chooseServer(two, "github")).toEqual({ ok: false, problem: "unknown", servers: ["fs", "memory"] });
    expect(chooseServer(wrapped, "fs")).toEqual({ ok: false, problem: "unknown", servers: [] });
  });
});

describe("suggestFrom", () => {
  const deny = { layer: "policy", kind: "tools.deny", value: "delete_*" };
  const calls = [
    call("search_nodes"),
    call("read_graph"),
    call("create_entities", "would-deny", {
      code: "E_ARG_SCHEMA",
      rule: { layer: "policy", kind: "schemas", value: "create_entities" },
    }),
    call("read_graph"),
    call("create_entities"),
    call("delete_entities", "would-hide", { code: "E_TOOL_DENIED", rule: deny }),
    call("ghost", "would-hide"),
    call("*wild"),
    // Allowed once, hidden once (the policy changed): never re-allowed.
    call("open_nodes"),
    call("open_nodes", "hidden", { code: "E_TOOL_NOT_ALLOWED" }),
  ];
  const s = suggestFrom(calls, null);

  it("allows exactly the tools called through the name rules, sorted; reports the others", () => {
    expect(s.allow.map((u) => u.tool)).toEqual(["create_entities", "read_graph", "search_nodes"]);
    expect(s.hidden.map((u) => u.tool)).toEqual(["delete_entities", "ghost", "open_nodes"]);
    expect(s.inexact.map((u) => u.tool)).toEqual(["*wild"]);
    expect(s.calls).toBe(calls.length);
    expect(s.digests).toEqual([DIGEST]);
  });

  it("counts calls, first and last, and each outcome", () => {
    const created = s.allow[0]!;
    expect(created).toMatchObject({
      tool: "create_entities",
      calls: 2,
      first: calls[2]!.time,
      last: calls[4]!.time,
    });
    expect(created.outcomes).toEqual([
      { decision: "would-deny", code: "E_ARG_SCHEMA", rule: calls[2]!.rule, count: 1 },
      { decision: "allow", code: null, rule: null, count: 1 },
    ]);
    expect(s.allow[1]!.outcomes).toEqual([{ decision: "allow", code: null, rule: null, count: 2 }]);
  });

  it("for one server of serve's log: its calls only; calls to no server are counted aside", () => {
    const served = suggestFrom(
      [
        call("a", "allow", { server: "fs" }),
        call("b", "allow", { server: "memory" }),
        call("c", "hidden", { server: null }),
      ],
      "fs",
    );
    expect(served.allow.map((u) => u.tool)).toEqual(["a"]);
    expect(served).toMatchObject({ server: "fs", calls: 1, noServer: 1, hidden: [] });
  });

  it("exactlyNamed: a * first or last would make a wildcard; an interior * is literal", () => {
    expect(exactlyNamed("read_file")).toBe(true);
    expect(exactlyNamed("read_*_file")).toBe(true);
    expect(exactlyNamed("")).toBe(true);
    for (const name of ["*", "read_*", "*_file", "*x*"]) expect(exactlyNamed(name)).toBe(false);
  });
});

describe("suggestedPolicyYaml", () => {
  it("loads as a v2 policy without a diagnostic, allowing exactly the names", () => {
    const s = suggestFrom(
      [call("read_graph"), call("search_nodes"), call("delete_entities", "would-hide")],
      null,
    );
    const text = suggestedPolicyYaml(s, SOURCE);
    const { policy, diagnostics } = loadPolicyText("suggested.yaml", text);
    expect(diagnostics).toEqual([]);
    expect(policy!.tools.allow!.map((e) => e.pattern)).toEqual(["read_graph", "search_nodes"]);
    expect(policy!.tools.deny).toEqual([]);
    expect(policy!.enforcement.unconstrainedTools).toBe("warn");
    expect(text).toContain('  #   - "delete_entities" # 1 call');
    expect(text).toContain(`head ${SOURCE.head}`);
    expect(text).toContain(`with digest ${DIGEST}`);
  });

  it("names from the log cannot break out of a comment or an entry", () => {
    const hostile = [
      'a"b',
      "back\\slash",
      "new\nline: allow_all",
      "tab\tx",
      "nel\u0085x",
      "ls\u2028x",
      "bidi\u202ex",
      "# not a comment",
      "- [x]",
      "ünïcødé",
    ];
    const ruled = { layer: "policy", kind: "tools.deny", value: "x\ntools:\n  allow: ['*']" };
    const calls = [
      ...hostile.map((name) => call(name, "allow", { time: "t\nversion: 1", server: "srv\nx" })),
      ...hostile.map((name) =>
        call(`${name}-hidden`, "would-hide", { code: "E_X\nY", rule: ruled, server: "srv\nx" }),
      ),
    ];
    const text = suggestedPolicyYaml(suggestFrom(calls, "srv\nx"), { ...SOURCE, file: "a\nb.jsonl" });
    const { policy, diagnostics } = loadPolicyText("suggested.yaml", text);
    expect(diagnostics).toEqual([]);
    expect(policy!.tools.allow!.map((e) => e.pattern)).toEqual([...hostile].sort((a, b) => (a < b ? -1 : 1)));
    expect(text).toContain('server "srv\\nx"');
    expect(parse(text)).toEqual({
      version: "2.0",
      tools: { allow: expect.any(Array) },
      enforcement: { unconstrained_tools: "warn" },
    });
  });

  it("nothing called: allow: [] with a note", () => {
    const text = suggestedPolicyYaml(suggestFrom([call("ghost", "hidden")], null), SOURCE);
    expect(loadPolicyText("s.yaml", text).policy!.tools.allow).toEqual([]);
    expect(text).toContain("Nothing was called through the name rules of the policy in force");
  });

  it("says which policies decided", () => {
    const none = suggestedPolicyYaml(suggestFrom([call("a", "allow", { policyDigest: null })], null), SOURCE);
    expect(none).toContain("# Decided without a policy file (policy_digest null).");
    const two = suggestedPolicyYaml(
      suggestFrom([call("a"), call("b", "allow", { policyDigest: null })], null),
      SOURCE,
    );
    expect(two).toContain(
      `# Decided under 2 policies, by digest:\n#   ${DIGEST}\n#   null (no policy file)\n`,
    );
  });
});

describe("judgeNames", () => {
  const policyText = `version: "2.0"
tools:
  allow: [read_graph, add_observations, "read_*", delete_entities]
  deny: [delete_entities, "memory__open_nodes"]
`;
  const compiled = compilePolicy(loadPolicyText("p.yaml", policyText).policy!);
  const s = suggestFrom(
    [
      call("read_graph", "allow", { server: "memory" }),
      call("open_nodes", "allow", { server: "memory" }),
      call("delete_entities", "would-hide", { server: "memory" }),
    ],
    "memory",
  );

  it("refuses by name (the gateway name included), lists exact entries nobody called", () => {
    const judged = judgeNames(compiled, s);
    expect(judged.refused).toEqual([
      {
        tool: "delete_entities",
        calls: 1,
        code: "E_TOOL_DENIED",
        rule: expect.objectContaining({ kind: "tools.deny", value: "delete_entities" }),
      },
      {
        tool: "open_nodes",
        calls: 1,
        code: "E_TOOL_DENIED",
        rule: expect.objectContaining({ kind: "tools.deny", value: "memory__open_nodes" }),
      },
    ]);
    // Not read_* (a wildcard), not delete_entities (denied), not read_graph (called).
    expect(judged.neverCalled).toEqual(["add_observations"]);
  });

  it("a policy without an allowlist cannot say what went uncalled", () => {
    const open = compilePolicy(loadPolicyText("p.yaml", 'version: "2.0"\ntools:\n  deny: [x]\n').policy!);
    expect(judgeNames(open, s).neverCalled).toBeNull();
  });
});

describe("narrowPolicy and narrowedPolicyYaml (--policy): the policy in force, never weakened", () => {
  const current = `version: "2.0"
name: reviewed
tools:
  allow: [write_file, read_graph, edit_file, "search_*"]
  deny: [delete_entities]
  approval_required: [write_file, edit_file, "create_*"]
  restrict_scope: [write_file, edit_file]
  redact_args: [write_file]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: [/work, /srv/data], scope_match_mode: prefix, realpath: true }
  redact_args_contract: { redaction_target: args, redaction_mode: hash, redaction_scope: sensitive_fields, fields: [content] }
schemas:
  $defs:
    big: { type: integer, maximum: 9007199254740993 }
  write_file: { type: object, additionalProperties: false, required: [path, content], properties: { path: { type: string }, content: { type: string }, n: { $ref: "#/$defs/big" } } }
  edit_file: { type: object, additionalProperties: false, required: [path], properties: { path: { type: string } } }
enforcement:
  unconstrained_tools: deny
  unpinned_tools: deny
  denied_tools: explain
limits: { max_tool_calls_total: 40 }
tool_pins:
  write_file: { server_id: fs, tool_name: write_file, schema_hash: "${"1".repeat(64)}", meta_hash: "${"2".repeat(64)}" }
  edit_file: { server_id: fs, tool_name: edit_file, schema_hash: "${"3".repeat(64)}", meta_hash: "${"4".repeat(64)}" }
`;
  const loaded = loadPolicyText("policy.yaml", current).policy!;
  const compiled = compilePolicy(loaded);
  const s = suggestFrom(
    [
      call("write_file", "would-deny", { code: "E_APPROVAL_REQUIRED" }),
      call("search_files"),
      call("create_entities", "would-hide", { code: "E_TOOL_NOT_ALLOWED" }),
      call("delete_entities", "allow"),
    ],
    null,
  );
  const narrowed = narrowPolicy(loaded, s, judgeNames(compiled, s));

  it("keeps every approval, scope, redaction, schema and pin of the tools kept, and the enforcement and limits", () => {
    expect(narrowed.allow).toEqual(["create_entities", "search_files", "write_file"]);
    expect(narrowed.added).toEqual(["create_entities"]);
    expect(narrowed.refused).toEqual(["delete_entities"]);
    const p = narrowed.policy;
    const patterns = (list: Array<{ pattern: string }>) => list.map((e) => e.pattern);
    expect(patterns(p.tools.approvalRequired)).toEqual(["write_file", "create_*"]);
    expect(patterns(p.tools.restrictScope)).toEqual(["write_file"]);
    expect(patterns(p.tools.redactArgs)).toEqual(["write_file"]);
    expect(patterns(p.tools.deny)).toEqual(["delete_entities"]);
    expect(p.tools.restrictScopeContract).toEqual(loaded.tools.restrictScopeContract);
    expect(p.tools.redactArgsContract).toEqual(loaded.tools.redactArgsContract);
    expect(p.schemas.write_file).toBe(loaded.schemas.write_file);
    expect(p.sharedDefs).toBe(loaded.sharedDefs);
    expect(p.toolPins.map((pin) => pin.key)).toEqual(["write_file"]);
    expect(p.enforcement).toEqual(loaded.enforcement);
    expect(p.limits).toEqual(loaded.limits);
  });

  it("says every entry it removes, with why", () => {
    expect(narrowed.removed.map((r) => `${r.field} ${r.entry} ${r.at?.line}: ${r.why}`)).toEqual([
      "tools.allow read_graph 4: never called",
      "tools.allow edit_file 4: never called",
      "tools.allow search_* 4: a wildcard; the tools it matches that were called are allowed by name (search_files)",
      "tools.approval_required edit_file 6: its tool is no longer allowed",
      "tools.restrict_scope edit_file 7: its tool is no longer allowed",
      "schemas edit_file 15: its tool is no longer allowed",
      "tool_pins edit_file 23: its tool is no longer allowed",
    ]);
  });

  it("writes a file that decides as the narrowed policy does, numbers exact, with what it removed in its header", () => {
    const text = narrowedPolicyYaml(s, SOURCE, "policy.yaml", narrowed);
    const reloaded = loadPolicyText("policy.yaml", text);
    expect(reloaded.diagnostics).toEqual([]);
    expect(decisionView(reloaded.policy!)).toEqual(decisionView(narrowed.policy));
    expect(text).toContain("maximum: 9007199254740993");
    expect(text).toContain('#   tools.allow "read_graph" (line 4): never called\n');
    expect(text).toContain("# called, but policy.yaml refuses them by name, so left out: delete_entities\n");
    expect(text).toMatch(
      /- "create_entities" # 1 call, .*; not allowed by policy.yaml: added \(no schema, so unconstrained_tools: deny refuses its calls until you add one; no pin, so unpinned_tools: deny withholds it until you pin it\)\n/,
    );
    const parsed = parse(text) as { tools: Record<string, unknown>; enforcement: unknown };
    expect(parsed.tools.approval_required).toEqual(["write_file", "create_*"]);
    expect(parsed.enforcement).toEqual({
      unconstrained_tools: "deny",
      denied_tools: "explain",
      unpinned_tools: "deny",
    });
  });

  it("a policy without an allowlist: only the tools called are allowed now, and it says so", () => {
    const open = loadPolicyText(
      "open.yaml",
      'version: "2.0"\ntools:\n  approval_required: [write_file]\n',
    ).policy!;
    const n = narrowPolicy(open, s, judgeNames(compilePolicy(open), s));
    expect(n.allow).toEqual(["create_entities", "delete_entities", "search_files", "write_file"]);
    expect(n.added).toEqual([]);
    const report = suggestReport(s, SOURCE, {
      file: "open.yaml",
      judgement: judgeNames(compilePolicy(open), s),
      narrowed: n,
    });
    expect(report).toContain(
      "open.yaml has no tools.allow (every tool it does not deny is allowed); now only the 4 tools called are\n",
    );
  });
});

describe("suggestReport", () => {
  const calls = [
    call("read_graph"),
    call("create_entities", "would-deny", {
      code: "E_ARG_SCHEMA",
      rule: { layer: "policy", kind: "schemas", value: "create_entities" },
    }),
    call("open_nodes", "would-hide", {
      code: "E_TOOL_NOT_ALLOWED",
      rule: { layer: "policy", kind: "tools.allow", value: "(no entry matches)" },
    }),
  ];
  const s = suggestFrom(calls, null);

  it("as recorded: every refusal with count, code and rule; the hidden tools apart", () => {
    expect(suggestReport(s, SOURCE)).toBe(
      [
        `toolgate: audit.jsonl: chain verified (9 events, seq 1..9, head ${SOURCE.head})`,
        "  3 calls of 3 tools; 3 tools in the suggested tools.allow",
        "refused by the policy in force, as the log recorded it:",
        '  create_entities: 1 call, would-deny E_ARG_SCHEMA (schemas "create_entities")',
        '  open_nodes: 1 call, would-hide E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        "",
      ].join("\n"),
    );
  });

  it("with --policy: its refusals by name and its exact entries nobody called", () => {
    const compiled = compilePolicy(
      loadPolicyText("p.yaml", 'version: "2.0"\ntools:\n  allow: [read_graph, search_nodes]\n').policy!,
    );
    const text = suggestReport(s, SOURCE, { file: "p.yaml", judgement: judgeNames(compiled, s) });
    expect(text).toContain(
      [
        "refused by p.yaml by name (the log holds no arguments, so its schemas, scopes and approvals are not judged):",
        '  create_entities: 1 call, E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        '  open_nodes: 1 call, E_TOOL_NOT_ALLOWED (tools.allow "(no entry matches)")',
        "allowed by p.yaml but never called:",
        "  search_nodes",
        "",
      ].join("\n"),
    );
    expect(text).not.toContain("as the log recorded it");
  });

  it("with --policy of 250,000 allow entries: each one never called listed, no stack overflow; the file lists the first 1,000 removals", () => {
    const names = Array.from({ length: 250_000 }, (_, i) => `tool_${String(i).padStart(6, "0")}`);
    const text = `version: "2.0"\ntools:\n  allow:\n${names.map((n) => `    - ${n}\n`).join("")}`;
    const policy = loadPolicyText("big.yaml", text).policy!;
    const one = suggestFrom([call("tool_000007")], null);
    const judgement = judgeNames(compilePolicy(policy), one);
    const narrowed = narrowPolicy(policy, one, judgement);
    const report = suggestReport(one, SOURCE, { file: "big.yaml", judgement, narrowed }).split("\n");
    expect(report.filter((l) => /^ {2}tool_\d{6}$/.test(l))).toHaveLength(249_999);
    expect(report.filter((l) => l.startsWith('  tools.allow "tool_'))).toHaveLength(249_999);
    // The written file's header lists the first thousand removals; the report (stderr) lists each.
    const yaml = narrowedPolicyYaml(one, SOURCE, "big.yaml", narrowed);
    expect(yaml.split("\n").filter((l) => l.startsWith('#   tools.allow "tool_'))).toHaveLength(1000);
    expect(yaml).toContain("#   … and 248999 more (the report on stderr lists each)\n");
    expect(loadPolicyText("narrowed.yaml", yaml).policy!.tools.allow!.map((e) => e.pattern)).toEqual([
      "tool_000007",
    ]);
  }, 180_000);

  it("nothing called: said", () => {
    const text = suggestReport(suggestFrom([], null), SOURCE);
    expect(text).toContain("the policy in force refused none of these calls");
    expect(text).toContain("the suggested tools.allow is empty, which allows nothing");
  });

  it("keeps names from the log on one line", () => {
    const text = suggestReport(
      suggestFrom([call("a\nb", "would-deny", { code: "E\u001b[2J" })], null),
      SOURCE,
    );
    expect(text).toContain("  a\\nb: 1 call, would-deny E\\u001b[2J");
  });
});
