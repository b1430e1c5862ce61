// The comparison of `toolgate policy diff`: each finding checked against what the two policies' gates
// decide, so a finding the gate would not make fails here.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { readCatalogText } from "../../../../src/config/catalogFile.js";
import { compilePolicy, type CompiledPolicy } from "../../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../../src/engine/policy/policyGate.js";
import { diffPolicies } from "../../../../src/engine/policy/policyDiff.js";
import { effectsOf, type PolicyDiff, type ToolChange } from "../../../../src/engine/policy/diffModel.js";

function load(file: string, text: string): CompiledPolicy {
  const { policy, diagnostics } = loadPolicyText(file, text);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return compilePolicy(policy);
}

const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const catalog = [
  {
    name: "fs",
    tools: ["read", "write", "list", "remove", "stat"].map((name) => ({ name, inputSchema: schema })),
  },
];

const OLD = load(
  "old.yaml",
  `version: "2.0"
tools:
  allow: [read, write, list, stat]
  approval_required: [write]
  redact_args: [stat]
schemas:
  read: {type: object, properties: {path: {type: string, maxLength: 20}, mode: {enum: [text, raw]}}, required: [path], additionalProperties: false}
limits: {max_tool_calls_total: 50}
`,
);
const NEW = load(
  "new.yaml",
  `version: "2.0"
tools:
  allow: [read, write, remove, stat]
  restrict_scope: [write]
  restrict_scope_contract: {scope_type: path_prefix, scope_value: /srv/app, scope_match_mode: prefix}
schemas:
  read: {type: object, properties: {path: {type: string, maxLength: 10}, mode: {enum: [text, raw, hex]}}, required: [path], additionalProperties: false}
limits: {max_tool_calls_total: 10}
`,
);

function change(diff: PolicyDiff, tool: string, kind: string): ToolChange | undefined {
  return diff.tools.find((t) => t.tool === tool)?.changes.find((c) => c.kind === kind);
}

describe("diffPolicies", () => {
  const diff = diffPolicies(OLD, NEW, catalog, { gatewayNames: false });
  const gates = [OLD, NEW].map((c) => createPolicyGate(c, { serverId: "fs", servers: ["fs"] }));

  it("reports tools shown and hidden with the deciding code and rule", () => {
    const list = change(diff, "list", "visibility")!;
    expect(list.effect).toBe("newly-denied");
    expect(list.new).toMatchObject({ visible: false, code: "E_TOOL_NOT_ALLOWED" });
    const remove = change(diff, "remove", "visibility")!;
    expect(remove.effect).toBe("newly-allowed");
    expect(remove.new).toMatchObject({ visible: true, rule: { kind: "tools.allow", value: "remove" } });
    expect(gates[1]!.visibility({ name: "remove", inputSchema: schema }).visible).toBe(true);
  });

  it("gives schema examples in both directions that the gates really decide so", () => {
    const read = change(diff, "read", "schema")!;
    expect(read.effect).toBe("changed");
    const tightened = read.examples!.find((e) => e.effect === "newly-denied")!;
    const loosened = read.examples!.find((e) => e.effect === "newly-allowed")!;
    expect(tightened.code).toBe("E_ARG_SCHEMA");
    expect(loosened.arguments.mode).toBe("hex");
    const zero = { toolCalls: 0, requests: 0 };
    for (const [example, before, after] of [
      [tightened, "allow", "deny"],
      [loosened, "deny", "allow"],
    ] as const) {
      expect(gates[0]!.decideCall("read", example.arguments, zero, { canElicit: true }).decision).toBe(
        before,
      );
      expect(gates[1]!.decideCall("read", example.arguments, zero, { canElicit: true }).decision).toBe(after);
    }
  });

  it("reports approval, scope, redaction and limits changes", () => {
    expect(change(diff, "write", "approval")).toMatchObject({ effect: "newly-allowed", new: null });
    const scope = change(diff, "write", "scope")!;
    expect(scope.effect).toBe("newly-denied");
    expect(scope.examples![0]!.code).toBe("E_SCOPE_VIOLATION");
    expect(change(diff, "stat", "redaction")).toMatchObject({ effect: "changed", new: null });
    expect(diff.policy).toEqual([
      { kind: "limits.max_tool_calls_total", effect: "newly-denied", old: 50, new: 10 },
    ]);
    expect(effectsOf(diff)).toEqual(new Set(["newly-allowed", "newly-denied", "changed"]));
  });

  it("finds nothing between a policy and itself", () => {
    const same = diffPolicies(OLD, OLD, catalog, { gatewayNames: false });
    expect(same.tools).toEqual([]);
    expect(same.unchanged).toBe(5);
    expect(effectsOf(same).size).toBe(0);
  });

  it("says when a schema change has no example among the values tried", () => {
    const a = load(
      "a.yaml",
      `version: "2.0"\ntools: {allow: [read]}\nschemas:\n  read: {type: object, properties: {path: {type: string, pattern: "^/a"}}}\n`,
    );
    const b = load(
      "b.yaml",
      `version: "2.0"\ntools: {allow: [read]}\nschemas:\n  read: {type: object, properties: {path: {type: string, pattern: "^/[a]"}}}\n`,
    );
    const d = diffPolicies(a, b, [{ name: "fs", tools: [{ name: "read", inputSchema: schema }] }], {
      gatewayNames: false,
    });
    const read = change(d, "read", "schema")!;
    expect(read).toMatchObject({ effect: "changed", examples: [] });
    expect(read.tried).toBeGreaterThan(0);
  });

  it("counts a tools.deny entry written as serve names the tool only for a catalog of configured servers", () => {
    const denied = load("d.yaml", `version: "2.0"\ntools: {deny: [fs__read]}\n`);
    const open = load("o.yaml", `version: "2.0"\ntools: {deny: []}\n`);
    const served = diffPolicies(open, denied, catalog, { gatewayNames: true });
    expect(change(served, "read", "visibility")).toMatchObject({
      effect: "newly-denied",
      new: { code: "E_TOOL_DENIED" },
    });
    expect(diffPolicies(open, denied, catalog, { gatewayNames: false }).tools).toEqual([]);
  });
});

describe("catalog files", () => {
  it("reads servers and tools", () => {
    const { servers } = readCatalogText(
      "c.json",
      JSON.stringify({ servers: { fs: { tools: [{ name: "read", inputSchema: schema }] } }, saved_at: "x" }),
    );
    expect(servers).toEqual([{ name: "fs", tools: [{ name: "read", inputSchema: schema }] }]);
  });

  it("refuses a bad tool at its file:line with E_CATALOG_FILE", () => {
    const text = '{\n  "servers": {\n    "fs": {"tools": [\n      {"inputSchema": {}}\n    ]}\n  }\n}\n';
    const { servers, diagnostics } = readCatalogText("c.json", text);
    expect(servers).toBeNull();
    expect(diagnostics[0]).toMatchObject({
      code: "E_CATALOG_FILE",
      file: "c.json",
      line: 4,
      path: "servers.fs.tools[0]",
    });
  });

  it("refuses a file without servers", () => {
    expect(readCatalogText("c.json", '{"tools": []}').diagnostics[0]).toMatchObject({
      code: "E_CATALOG_FILE",
      line: 1,
    });
  });
});
