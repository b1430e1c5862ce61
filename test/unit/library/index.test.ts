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

describe("a gateway from a configuration", () => {
  it("names the client whose context does not build, and gives sessions keyed on each client's principal", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "tg-gateway-"));
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { m: { command: "true" } } }));
    writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\n");
    const loaded = toolgate.loadConfigDir(dir, { skills: [] });
    expect(loaded.config).not.toBeNull();
    const config = loaded.config!;
    const principal = toolgate.localPrincipal("ci");
    const good: toolgate.ClientContext = { client: "ci", principal, selection: { skills: [] }, config };
    const bad: toolgate.ClientContext = {
      ...good,
      client: "ops",
      selection: { session: "nope", skills: [] },
    };
    expect(toolgate.brokenContext([good], null)).toBeNull();
    expect(toolgate.brokenContext([good, bad], null)?.client).toBe("ops");
    const gateway = new toolgate.Gateway({
      policy: null,
      mode: "direct",
      audit: null,
      connect: toolgate.connectUpstream,
      upstreamTimeoutMs: 1000,
      requestTimeoutMs: 1000,
      backoff: { initialMs: 100, maxMs: 100, stableMs: 100 },
      count: () => ({ requests: 0, toolCalls: 0 }),
      log: () => undefined,
    });
    const session = gateway.session(good, "s1");
    expect(session.principal.key).toBe(principal.key);
    await session.close();
  });
});
