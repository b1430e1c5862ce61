import { describe, expect, it } from "vitest";
import * as toolgate from "../../../src/index.js";

describe("library surface", () => {
  it("decides a call from policy text with nothing but the exported functions", () => {
    const { policy, diagnostics } = toolgate.loadPolicyText(
      "inline.yaml",
      'version: "2.0"\ntools:\n  allow: [read_file]\nschemas:\n  read_file: {type: object, required: [path]}\n',
    );
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const compiled = toolgate.compilePolicy(policy!);
    const gate = toolgate.createPolicyGate(compiled);
    expect(gate.visibility({ name: "read_file" }).visible).toBe(true);
    expect(gate.visibility({ name: "write_file" })).toMatchObject({
      visible: false,
      code: "E_TOOL_NOT_ALLOWED",
    });
    expect(gate.decideCall("read_file", {}, { requests: 0, toolCalls: 0 })).toMatchObject({
      decision: "deny",
      code: "E_ARG_SCHEMA",
      violations: [{ path: "/path" }],
    });
    expect(toolgate.REASON_CODES).toContain("E_TOOL_DRIFT");
  });

  it("the allow-all gate still refuses arguments that are not an object", () => {
    const gate = toolgate.allowAllGate();
    expect(gate.decideCall("x", undefined, { requests: 0, toolCalls: 0 }).decision).toBe("allow");
    expect(gate.decideCall("x", [1], { requests: 0, toolCalls: 0 })).toMatchObject({
      decision: "deny",
      code: "E_ARG_SCHEMA",
    });
  });
});
