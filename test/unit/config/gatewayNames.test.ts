// Policy entries written as serve shows a tool (`<server>__<tool>`): a deny entry so written denies the
// server's tool (only that server's); every other field is warned about, with the file, line and fix.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { gatewayNameDiagnostics } from "../../../src/config/policyGatewayNames.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { decideName } from "../../../src/engine/policy/decide.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";

const load = (text: string) => {
  const { policy, diagnostics } = loadPolicyText("p.yaml", text);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return policy;
};

describe("tools.deny by the gateway's name", () => {
  const compiled = compilePolicy(load(`version: "2.0"\ntools:\n  deny: ["fs__write_*"]\n`));

  it("denies the tool of that server, with the reason naming both names", () => {
    const outcome = decideName(compiled, "write_file", "fs__write_file");
    expect(outcome).toMatchObject({ allowed: false, code: "E_TOOL_DENIED", rule: { value: "fs__write_*" } });
    expect(outcome.reason).toContain("its name through the gateway, 'fs__write_file'");
  });

  it("does not deny another server's tool of the same name, nor without a gateway name", () => {
    expect(decideName(compiled, "write_file", "git__write_file").allowed).toBe(true);
    expect(decideName(compiled, "write_file").allowed).toBe(true);
  });

  it("applies in the gate's list and call stages alike", () => {
    const g = createPolicyGate(compiled, { gatewayName: "fs" });
    expect(g.visibility({ name: "write_file" }).visible).toBe(false);
    const d = g.decideCall("write_file", {}, { requests: 0, toolCalls: 0 });
    expect(d).toMatchObject({ decision: "deny", code: "E_TOOL_DENIED" });
    expect(
      createPolicyGate(compiled).decideCall("write_file", {}, { requests: 0, toolCalls: 0 }),
    ).toMatchObject({
      decision: "allow",
    });
  });
});

describe("W_GATEWAY_NAME", () => {
  const policy = load(`version: "2.0"
tools:
  allow: ["fs__read_file", "read_text", "fs__"]
  deny: ["fs__write_file"]
  approval_required: ["git__commit"]
schemas:
  fs__read_file: { type: object }
enforcement: { unconstrained_tools: allow }
`);

  it("names each non-deny entry written as serve shows the tool, with file, line and the name to write", () => {
    const found = gatewayNameDiagnostics(policy, ["fs", "git"]);
    expect(found.map((d) => [d.code, d.line, d.message.split(" names")[0], d.hint])).toEqual([
      [
        "W_GATEWAY_NAME",
        3,
        "tools.allow entry 'fs__read_file'",
        "write 'read_file' (a tools.deny entry may use either name)",
      ],
      [
        "W_GATEWAY_NAME",
        5,
        "tools.approval_required entry 'git__commit'",
        "write 'commit' (a tools.deny entry may use either name)",
      ],
      [
        "W_GATEWAY_NAME",
        7,
        "schemas entry 'fs__read_file'",
        "write 'read_file' (a tools.deny entry may use either name)",
      ],
    ]);
  });

  it("says nothing without the configuration's servers, or for a server it does not have", () => {
    expect(gatewayNameDiagnostics(policy, [])).toEqual([]);
    expect(gatewayNameDiagnostics(policy, ["other"])).toEqual([]);
  });
});
