// Pins as part of the gate's name stage (docs/design.md, two stages: pins).
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../../src/engine/model/diagnostics.js";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { metaHash, schemaHash } from "../../../../src/engine/pins/hashes.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import type { ToolDefinition } from "../../../../src/engine/model/gate.js";
import { createPolicyGate } from "../../../../src/engine/policy/policyGate.js";
import { serverFilter } from "../../../../src/engine/policy/serverFilter.js";
import { buildConfig } from "./buildConfig.js";

const echo: ToolDefinition = { name: "echo", description: "Echo", inputSchema: { type: "object" } };
const pinned = (serverId?: string) => `version: "2.0"
tools:
  deny: ["exec"]
tool_pins:
  echo:
${serverId === undefined ? "" : `    server_id: ${serverId}\n`}    tool_name: echo
    schema_hash: "${schemaHash(echo.inputSchema)}"
    meta_hash: "${metaHash(echo.description)}"
enforcement:
  unpinned_tools: deny
`;

function gate(text: string, serverId?: string) {
  const { policy, diagnostics } = loadPolicyText("p.yaml", text);
  if (policy === null) throw new Error(diagnostics.map(formatDiagnostic).join("\n"));
  return createPolicyGate(compilePolicy(policy), serverId === undefined ? {} : { serverId });
}

describe("pins in the gate's visibility", () => {
  it("a definition matching its pin is visible; a changed one is withheld with E_TOOL_DRIFT", () => {
    const g = gate(pinned());
    expect(g.visibility(echo).visible).toBe(true);
    const drifted = g.visibility({ ...echo, description: "Echo (now also uploads)" });
    expect(drifted).toMatchObject({ visible: false, explain: false, code: "E_TOOL_DRIFT" });
    expect(drifted.rule).toMatchObject({ kind: "tool_pins", value: "echo" });
  });

  it("a bare name is judged by name: pinned stays visible until its definition is seen, unpinned is withheld", () => {
    const g = gate(pinned());
    expect(g.visibility({ name: "echo" }).visible).toBe(true);
    expect(g.visibility({ name: "other" })).toMatchObject({ visible: false, code: "E_TOOL_DRIFT" });
    // listed: true makes the same bare object a definition (no inputSchema: schema_hash of null).
    expect(g.visibility({ name: "echo" }, { listed: true }).visible).toBe(false);
  });

  it("name rules decide first: a denied tool is E_TOOL_DENIED, not drift", () => {
    expect(gate(pinned()).visibility({ name: "exec", inputSchema: {} }).code).toBe("E_TOOL_DENIED");
  });

  it("server_id: the gate's own, overridden by the context", () => {
    const g = gate(pinned("fs"), "fs");
    expect(g.visibility(echo).visible).toBe(true);
    // 'fs' is a server this gate serves, so its pin is not another server's: 'other' has none.
    expect(g.visibility(echo, { serverId: "other" }).visible).toBe(false);
  });

  it("a pin naming a server the gate does not serve still holds the tool: a drifted one is withheld", () => {
    const g = gate(pinned("filesystem-prod"), "fs");
    expect(g.visibility(echo).visible).toBe(true);
    expect(g.visibility({ ...echo, description: "Echo (now also uploads)" })).toMatchObject({
      visible: false,
      code: "E_TOOL_DRIFT",
      rule: { kind: "tool_pins", value: "echo" },
    });
  });

  it("answers the same for the same definition object (remembered) and re-checks a new one", () => {
    const g = gate(pinned());
    const changed = { ...echo, description: "changed" };
    expect(g.visibility(changed).visible).toBe(false);
    expect(g.visibility(changed).visible).toBe(false);
    expect(g.visibility({ ...echo }).visible).toBe(true);
  });

  it("explains instead of hiding under denied_tools: explain", () => {
    const g = gate(pinned().replace("unpinned_tools: deny", "unpinned_tools: deny\n  denied_tools: explain"));
    expect(g.visibility({ ...echo, description: "x" })).toMatchObject({ visible: false, explain: true });
  });

  it("warns about pins whose tool is not in the catalog", () => {
    const g = gate(pinned("fs"));
    expect(g.catalogWarnings?.(["echo"], "fs")).toEqual([]);
    expect(g.catalogWarnings?.(["cat"], "fs")).toEqual([expect.stringContaining("tool_pins.echo")]);
    expect(g.catalogWarnings?.(["cat"], "elsewhere")).toEqual([
      "p.yaml:5:3: warning W_PIN_SERVER tool_pins.echo: names server 'fs', which toolgate does not serve here, " +
        "and server 'elsewhere' lists no tool 'echo' (pins name a server as toolgate knows it, never by the name " +
        "a server gives itself) (hint: write server_id: elsewhere, as toolgate pin --server elsewhere does)",
    ]);
    expect(g.catalogWarnings?.(["echo"], "elsewhere")).toEqual([
      expect.stringContaining(
        "W_PIN_SERVER tool_pins.echo: names server 'fs', which toolgate does not serve here; it holds tool 'echo' " +
          "of server 'elsewhere', which has no pin of its own",
      ),
    ]);
  });

  it("does not call pins misaddressed when they name another server the gateway serves", () => {
    const { policy } = loadPolicyText("p.yaml", pinned("fs"));
    const g = createPolicyGate(compilePolicy(policy!), { serverId: "other", servers: ["fs", "other"] });
    expect(g.catalogWarnings?.(["cat"], "other")).toEqual([]);
  });

  it("serverFilter gives the gate the mcp.json server name as server_id", () => {
    const { policy } = loadPolicyText("p.yaml", pinned("fs"));
    const config = buildConfig({ servers: { fs: undefined, other: undefined } });
    const active = { compiled: compilePolicy(policy!), shownPath: "p.yaml" };
    expect(serverFilter(config, { skills: [] }, "fs", active).gate.visibility(echo).visible).toBe(true);
    expect(serverFilter(config, { skills: [] }, "other", active).gate.visibility(echo).visible).toBe(false);
  });
});

describe("redaction contract from the gate", () => {
  it("is the policy's contract for tools under redact_args and null for the rest", () => {
    const g = gate(`version: "2.0"
tools:
  redact_args: ["write_*"]
  redact_args_contract: { redaction_target: args, redaction_mode: drop, redaction_scope: sensitive_fields }
`);
    expect(g.redaction?.("write_file")).toMatchObject({
      redactionMode: "drop",
      redactionScope: "sensitive_fields",
    });
    expect(g.redaction?.("read_file")).toBeNull();
  });
});
