// A policy test file is read strictly: every problem is an error at its line and field, with a hint, since
// an expectation that is silently dropped would pass a policy nobody checked.
import { describe, expect, it } from "vitest";
import { parsePolicyTestFile } from "../../../src/config/policyTestFile.js";

function errors(yaml: string): string[] {
  const { tests, diagnostics } = parsePolicyTestFile("/t/p.tests.yaml", yaml);
  if (diagnostics.length > 0) expect(tests).toBeNull();
  return diagnostics.map((d) => `${d.line} ${d.code} ${d.path}: ${d.message}${d.hint ? ` (${d.hint})` : ""}`);
}

describe("parsePolicyTestFile", () => {
  it("reads the issue's shape: paths relative to the file, each case with its line", () => {
    const { tests, diagnostics } = parsePolicyTestFile(
      "/t/p.tests.yaml",
      `policy: policy.yaml
cases:
  - name: reads are allowed
    context: {token: ci}
    call: {server: fs, tool: read_text_file, arguments: {path: /srv/app/a.txt}}
    expect: {decision: allow}
  - name: writes wait for a person
    call: {tool: write_file, arguments: {path: /srv/app/a.txt, content: x}}
    expect: {decision: deny, code: E_APPROVAL_REQUIRED}
  - name: what the model sees
    list: {server: fs}
    expect: {visible: [read_text_file, list_directory]}
`,
    );
    expect(diagnostics).toEqual([]);
    expect(tests!.policy).toBe("/t/policy.yaml");
    expect(tests!.cases.map((c) => [c.name, c.at.line, c.request.kind])).toEqual([
      ["reads are allowed", 3, "call"],
      ["writes wait for a person", 7, "call"],
      ["what the model sees", 10, "list"],
    ]);
    expect(tests!.cases[0]).toMatchObject({
      context: { token: "ci", skills: [] },
      request: {
        server: "fs",
        tool: "read_text_file",
        arguments: { path: "/srv/app/a.txt" },
        approval: "none",
      },
    });
    expect(tests!.cases[2]!.expect).toEqual({ visible: ["read_text_file", "list_directory"] });
  });

  it("an unknown field, a wrong value and a misplaced expectation are errors at their line, with a hint", () => {
    expect(
      errors(`config_dir: .
cases:
  - name: a
    call: {tool: t}
    expect: {decison: allow}
  - name: b
    call: {tool: t, approval: maybe}
    expect: {decision: allowed}
  - name: c
    list: {}
    expect: {decision: allow}
`),
    ).toEqual([
      "5 E_POLICY_TEST_FILE cases[0].expect.decison: unknown field 'decison' in 'expect'; refused rather than ignored, so no expectation goes unchecked (did you mean 'decision'?)",
      "7 E_POLICY_TEST_FILE cases[1].call.approval: 'call.approval' must be one of none, ask, not 'maybe'",
      "8 E_POLICY_TEST_FILE cases[1].expect.decision: 'expect.decision' must be one of allow, deny, hidden, not 'allowed' (did you mean 'allow'?)",
      "11 E_POLICY_TEST_FILE cases[2].expect: a 'list' case expects 'visible' only, not decision (write a 'call' case for a decision)",
    ]);
  });

  it("two cases of one name: the second is named with the first's line", () => {
    expect(
      errors(`policy: p.yaml
cases:
  - name: twice
    list: {}
    expect: {visible: []}
  - name: twice
    call: {tool: t}
    expect: {decision: allow}
`),
    ).toEqual([
      "6 E_POLICY_TEST_FILE cases[1]: two cases are named 'twice' (the first at line 3) (give each case its own name)",
    ]);
  });

  it("a case without name, request or expectation, or with both call and list", () => {
    const found = errors(`policy: p.yaml
cases:
  - call: {tool: t}
    expect: {decision: allow}
  - name: twice
    list: {}
    expect: {visible: []}
  - name: twice
    call: {tool: t}
    list: {}
    expect: {decision: allow}
  - name: nothing
`);
    expect(found.map((f) => f.slice(0, f.indexOf(":") + 40))).toEqual([
      expect.stringMatching(/^3 E_POLICY_TEST_FILE cases\[0\]: the case has no 'name'/),
      expect.stringMatching(/^10 E_POLICY_TEST_FILE cases\[2\]\.list: a case has either 'call' or 'list'/),
      expect.stringMatching(/^12 E_POLICY_TEST_FILE cases\[3\]: the case has neither 'call' nor 'list'/),
      expect.stringMatching(/^12 E_POLICY_TEST_FILE cases\[3\]: the case has no 'expect'/),
    ]);
  });

  it("a token beside a selection, an obligation that does not exist, an empty or case-less file", () => {
    expect(
      errors(`policy: p.yaml
cases:
  - name: a
    context: {token: ci, role: admin}
    call: {tool: t}
    expect: {obligations: [approve]}
`),
    ).toEqual([
      expect.stringMatching(
        /^4 E_POLICY_TEST_FILE cases\[0\]\.context: 'context' names a token and a context/,
      ),
      expect.stringMatching(
        /^6 E_POLICY_TEST_FILE cases\[0\]\.expect\.obligations\[0\]: 'approve' is not an obligation/,
      ),
    ]);
    expect(errors("")).toEqual([expect.stringMatching(/^1 E_POLICY_TEST_FILE : the test file is empty/)]);
    expect(errors("policy: p.yaml\n")).toEqual([expect.stringMatching(/no 'cases:'/)]);
    expect(errors("policy: p.yaml\ncases: [\n")[0]).toMatch(/E_SYNTAX/);
  });
});
