// A policy test case is decided by the gate's own functions (callVerdict, the name stage): these cases pin
// down what each expectation compares, on a real policy compiled from text and a catalog as tools/list
// gives it.
import { describe, expect, it } from "vitest";
import type { PolicyCatalog } from "../../../src/config/catalogFile.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { parsePolicyTestFile, type PolicyTestCase } from "../../../src/config/policyTestFile.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { evaluateCase, ruleMatches } from "../../../src/session/policyCase.js";
import { policyGates } from "../../../src/session/policyTestContext.js";

const POLICY = `version: "2.0"
tools:
  allow: [read_text_file, write_file, list_directory]
  deny: [move_file]
  approval_required: [write_file]
  redact_args: [write_file]
schemas:
  read_text_file:
    type: object
    properties: { path: { type: string, maxLength: 20 } }
    required: [path]
    additionalProperties: false
`;

const schema = { type: "object", properties: { path: { type: "string" } } };
const catalog: PolicyCatalog = new Map([
  [
    "fs",
    {
      tools: ["read_text_file", "write_file", "list_directory", "move_file", "delete_file"].map((name) => ({
        name,
        inputSchema: schema,
      })),
      rawSchemas: new Map(),
    },
  ],
]);

function gates() {
  const { policy } = loadPolicyText("policy.yaml", POLICY);
  if (policy === null) throw new Error("the policy does not load");
  return policyGates({ compiled: compilePolicy(policy), shownPath: "policy.yaml" }, catalog);
}

function cases(yaml: string): PolicyTestCase[] {
  const { tests, diagnostics } = parsePolicyTestFile("/t/policy.tests.yaml", yaml);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return tests!.cases;
}

function decide(yaml: string) {
  return cases(yaml).map((c) => evaluateCase(c, gates(), catalog));
}

describe("evaluateCase", () => {
  it("an allowed call passes `decision: allow` and reports the rule that allowed it", () => {
    const [r] = decide(`cases:
  - name: reads
    call: {tool: read_text_file, arguments: {path: /srv/a.txt}}
    expect: {decision: allow, rule: "tools.allow read_text_file"}
`);
    expect(r).toMatchObject({ kind: "decided", passed: true, actual: { decision: "allow", code: null } });
  });

  it("a call the schema refuses is a deny with the schema's code, and a wrong expectation says both sides", () => {
    const [r] = decide(`cases:
  - name: long path
    call: {tool: read_text_file, arguments: {path: /srv/a/very/long/path/name.txt}}
    expect: {decision: allow}
`);
    expect(r!.kind).toBe("decided");
    if (r?.kind !== "decided") return;
    expect(r.passed).toBe(false);
    expect(r.actual.decision).toBe("deny");
    expect(r.actual.code).toBe("E_ARG_SCHEMA");
    expect(r.mismatches).toEqual(["decision: expected allow, got deny"]);
  });

  it("approval_required: refused without approval, allowed when a person can be asked; obligations listed", () => {
    const [none, ask] = decide(`cases:
  - name: no approval
    call: {tool: write_file, arguments: {path: /srv/a.txt}}
    expect: {decision: deny, code: E_APPROVAL_REQUIRED, obligations: [approval_required, redact_args]}
  - name: a person to ask
    call: {tool: write_file, arguments: {path: /srv/a.txt}, approval: ask}
    expect: {decision: allow, obligations: [redact_args]}
`);
    expect(none).toMatchObject({ passed: true });
    expect(ask).toMatchObject({ passed: false, actual: { decision: "allow" } });
    if (ask?.kind === "decided") {
      expect(ask.mismatches).toEqual([
        "obligations: unexpected approval_required (got [approval_required, redact_args])",
      ]);
    }
  });

  it("name-stage refusals are hidden (deny rule, not allowed, not in the catalog), never deny", () => {
    const results = decide(`cases:
  - name: denied by name
    call: {server: fs, tool: move_file}
    expect: {decision: hidden, code: E_TOOL_DENIED, rule: move_file}
  - name: not allowed
    call: {tool: delete_file}
    expect: {decision: hidden}
  - name: absent
    call: {tool: no_such_tool}
    expect: {decision: deny}
`);
    expect(results.map((r) => r.kind === "decided" && r.passed)).toEqual([true, true, false]);
    expect(results[2]).toMatchObject({ actual: { decision: "hidden", code: null } });
  });

  it("a list case compares exactly the visible set, naming what is missing and what is extra", () => {
    const [ok, wrong] = decide(`cases:
  - name: what the model sees
    list: {server: fs}
    expect: {visible: [list_directory, write_file, read_text_file]}
  - name: too few
    list: {}
    expect: {visible: [read_text_file, move_file]}
`);
    expect(ok).toMatchObject({ passed: true });
    expect(wrong).toMatchObject({ passed: false });
    if (wrong?.kind === "decided") {
      expect(wrong.mismatches[0]).toMatch(
        /^visible: missing move_file; unexpected write_file, list_directory/,
      );
    }
  });

  it("a server that is not configured, or none named among several, cannot be decided", () => {
    const [r] = decide(`cases:
  - name: other server
    call: {server: web, tool: fetch}
    expect: {decision: allow}
`);
    expect(r).toMatchObject({ kind: "unusable", message: "server 'web' is not configured" });
    const two = { gates: gates().gates, configured: ["fs", "web"] };
    const c = cases(`cases:
  - name: which
    list: {}
    expect: {visible: []}
`)[0]!;
    expect(evaluateCase(c, two, catalog)).toMatchObject({
      kind: "unusable",
      hint: "add server: (one of fs, web)",
    });
  });

  it("a server the context does not enable shows nothing and hides every call", () => {
    const none = { gates: new Map(), configured: ["fs"] };
    const [list, call] = cases(`cases:
  - name: list
    list: {}
    expect: {visible: []}
  - name: call
    call: {tool: read_text_file, arguments: {path: /a}}
    expect: {decision: hidden}
`);
    expect(evaluateCase(list!, none, catalog)).toMatchObject({ passed: true });
    expect(evaluateCase(call!, none, catalog)).toMatchObject({ passed: true });
  });

  it("rule: by pattern, by kind, or both; nothing matches no rule", () => {
    const rule = { layer: "policy", kind: "tools.deny", value: "move_*" };
    expect(["move_*", "tools.deny", "tools.deny move_*"].map((e) => ruleMatches(e, rule))).toEqual([
      true,
      true,
      true,
    ]);
    expect(ruleMatches("tools.allow move_*", rule)).toBe(false);
    expect(ruleMatches("move_*", null)).toBe(false);
  });
});
