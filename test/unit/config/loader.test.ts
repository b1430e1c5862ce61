import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasErrors } from "../../../src/engine/model/diagnostics.js";
import { loadPolicyFile, loadPolicyText } from "../../../src/config/policyLoader.js";
import { corpusCases } from "./corpusFiles.js";

const load = (text: string) => loadPolicyText("p.yaml", text);
const codes = (text: string) => load(text).diagnostics.map((d) => d.code);
const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("version", () => {
  it.each([
    ['version: "2.0"\n', "2.0"],
    ["version: '1.0'\n", "1.0"],
  ])("accepts %j", (text, version) => {
    expect(load(text).policy?.sourceVersion).toBe(version);
  });

  it.each([
    ["name: x\n", "1:1", "missing version", 'add version: "2.0" as the first line'],
    ["version: 2.0\n", "1:10", "version must be a quoted string, got the number 2.0", 'write version: "2.0"'],
    ["version: 2\n", "1:10", "version must be a quoted string, got the number 2", 'write version: "2.0"'],
    ["version: 1.0\n", "1:10", "version must be a quoted string, got the number 1.0", 'write version: "1.0"'],
    [
      'version: "2"\n',
      "1:10",
      'unsupported version "2"; supported versions: "2.0", "1.0"',
      'write version: "2.0"',
    ],
    [
      'version: "v1"\n',
      "1:10",
      'unsupported version "v1"; supported versions: "2.0", "1.0"',
      'write version: "1.0"',
    ],
    ['version: "3.0"\n', "1:10", 'unsupported version "3.0"; supported versions: "2.0", "1.0"', undefined],
  ])("refuses %j", (text, pos, message, hint) => {
    const { policy, diagnostics } = load(text);
    expect(policy).toBeNull();
    expect(diagnostics).toHaveLength(1);
    const d = diagnostics[0]!;
    expect([d.severity, d.code, `${d.line}:${d.column}`, d.path, d.message, d.hint]).toEqual([
      "error",
      "E_POLICY_VERSION",
      pos,
      "version",
      message,
      hint,
    ]);
  });

  it("refuses a version that is not a scalar", () => {
    expect(load("version: [2]\n").diagnostics[0]).toMatchObject({
      code: "E_POLICY_FIELD_TYPE",
      path: "version",
      line: 1,
      column: 10,
    });
  });

  it("keeps validating the rest of a file whose version is wrong", () => {
    expect(codes("version: 2.0\ntools:\n  deny: exec\n")).toEqual([
      "E_POLICY_VERSION",
      "E_POLICY_FIELD_TYPE",
    ]);
  });
});

describe("allow and deny lists", () => {
  it("has no allowlist when allow is absent, and an empty one for allow: []", () => {
    expect(load('version: "2.0"\ntools:\n  deny: [exec]\n').policy!.tools.allow).toBeNull();
    expect(load('version: "2.0"\ntools:\n  allow: []\n').policy!.tools.allow).toEqual([]);
    expect(load('version: "2.0"\nallow: []\n').policy!.tools.allow).toEqual([]);
  });

  it("refuses an empty allow value, which would read as 'no allowlist'", () => {
    const { policy, diagnostics } = load('version: "2.0"\ntools:\n  allow:\n  deny: [exec]\n');
    expect(policy).toBeNull();
    expect(diagnostics[0]).toMatchObject({ code: "E_POLICY_FIELD_TYPE", path: "tools.allow", line: 3 });
    expect(diagnostics[0]!.hint).toBe("write [] to allow nothing, or remove the line to have no allowlist");
  });

  it("reads an empty deny value as no denials", () => {
    expect(load('version: "2.0"\ntools:\n  deny:\n').policy!.tools.deny).toEqual([]);
  });

  it("keeps each entry's source position", () => {
    const policy = load('version: "2.0"\ntools:\n  allow:\n    - read_file\n    - "get_*"\n').policy!;
    expect(policy.tools.allow).toEqual([
      { pattern: "read_file", at: { file: "p.yaml", path: "tools.allow[0]", line: 4, column: 7 } },
      { pattern: "get_*", at: { file: "p.yaml", path: "tools.allow[1]", line: 5, column: 7 } },
    ]);
  });

  it("names every non-string entry with its own path", () => {
    const { diagnostics } = load('version: "2.0"\ntools:\n  deny: [exec, 12, true, null, [x]]\n');
    expect(diagnostics.map((d) => d.path)).toEqual([
      "tools.deny[1]",
      "tools.deny[2]",
      "tools.deny[3]",
      "tools.deny[4]",
    ]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      "expected a tool-name pattern (a string), got a number (12)",
      "expected a tool-name pattern (a string), got a boolean (true)",
      "expected a tool-name pattern (a string), got null",
      "expected a tool-name pattern (a string), got a list",
    ]);
  });

  it("merges root-level lists after the tools.* entries", () => {
    const policy = load('version: "1.0"\ndeny: [a]\nallow: [b]\ntools:\n  deny: [c]\n').policy!;
    expect(policy.tools.deny.map((e) => e.pattern)).toEqual(["c", "a"]);
    expect(policy.tools.allow!.map((e) => e.pattern)).toEqual(["b"]);
    expect(policy.tools.deny[1]!.at.path).toBe("deny[0]");
  });

  it("reads every obligation list", () => {
    const t = policyTools(
      "approval_required: [deploy]\n  restrict_scope: [read_file]\n  redact_args: [send]\n" +
        scopeContract +
        redactContract,
    );
    const p = load(t).policy!;
    expect(
      [p.tools.approvalRequired, p.tools.restrictScope, p.tools.redactArgs].map((l) =>
        l.map((e) => e.pattern),
      ),
    ).toEqual([["deploy"], ["read_file"], ["send"]]);
  });
});

const scopeContract =
  "  restrict_scope_contract: {scope_type: tool, scope_value: read_file, scope_match_mode: exact}\n";
const redactContract =
  "  redact_args_contract: {redaction_target: args, redaction_mode: drop, redaction_scope: all_fields}\n";
const policyTools = (body: string) => `version: "2.0"\ntools:\n  ${body}`;

describe("deprecations", () => {
  const deprecations = (text: string) =>
    load(text).diagnostics.filter((d) => d.code.startsWith("W_DEPRECATED"));

  it("warns exactly once for a v1 file, however many v1 constructs it uses", () => {
    const text = 'version: "1.0"\nallow: [a]\ndeny: [b]\nconstraints:\n  a: {x: "^y"}\n  b: {z: "^w"}\n';
    expect(deprecations(text).map((d) => d.code)).toEqual(["W_DEPRECATED_V1"]);
    expect(deprecations(text)[0]!.message).toContain("'constraints' and root-level allow/deny");
  });

  it("warns once for a v1 file that uses no v1 construct", () => {
    expect(deprecations('version: "1.0"\ntools:\n  deny: [exec]\n').map((d) => d.code)).toEqual([
      "W_DEPRECATED_V1",
    ]);
  });

  it("warns once for a v2 file with both constraints and root lists", () => {
    expect(
      deprecations('version: "2.0"\ndeny: [b]\nconstraints:\n  a: {x: "^y"}\n').map((d) => [d.code, d.path]),
    ).toEqual([["W_DEPRECATED_V1", "constraints"]]);
  });

  it("does not warn for a clean v2 file", () => {
    expect(load('version: "2.0"\ntools:\n  deny: [exec]\n').diagnostics).toEqual([]);
    expect(load('version: "2.0"\n').policy!.legacy).toBeUndefined();
  });
});

describe("v1 constraints", () => {
  it("reads the list form with the string shorthand, like the map form", () => {
    const a = load(
      'version: "1.0"\nconstraints:\n  - tool: t\n    params: {p: "^x", q: {matches: "^y"}}\n',
    ).policy!;
    const b = load('version: "1.0"\nconstraints:\n  t:\n    q: {matches: "^y"}\n    p: "^x"\n').policy!;
    expect(a.schemas.t!.schema).toEqual(b.schemas.t!.schema);
    expect(a.schemas.t!.schema).toEqual({
      type: "object",
      additionalProperties: true,
      properties: {
        p: { type: "string", pattern: "^x", minLength: 1 },
        q: { type: "string", pattern: "^y", minLength: 1 },
      },
      required: ["p", "q"],
    });
    expect(a.schemas.t!.fromV1Constraints).toBe(true);
  });

  it.each([
    ["equals", 'p: {equals: "a"}'],
    ["min", "n: {min: 1}"],
    ["max", "n: {max: 9}"],
    ["enum", "p: {enum: [a, b]}"],
  ])("refuses the operator %s, which v1 never checked", (op, param) => {
    const { policy, diagnostics } = load(`version: "1.0"\nconstraints:\n  t:\n    ${param}\n`);
    expect(policy).toBeNull();
    expect(diagnostics.find((d) => d.code === "E_POLICY_V1_OPERATOR")?.path).toMatch(new RegExp(`\\.${op}$`));
  });

  it("refuses constraints of the wrong shape", () => {
    expect(codes('version: "1.0"\nconstraints: "read_file"\n')).toEqual([
      "W_DEPRECATED_V1",
      "E_POLICY_FIELD_TYPE",
    ]);
    expect(codes('version: "1.0"\nconstraints:\n  t:\n')).toEqual(["W_DEPRECATED_V1", "E_POLICY_FIELD_TYPE"]);
    expect(codes('version: "1.0"\nconstraints:\n  - tool: t\n')).toEqual([
      "W_DEPRECATED_V1",
      "E_POLICY_MISSING_FIELD",
    ]);
  });
});

describe("schemas", () => {
  it("keeps $defs apart from the tools and allows boolean schemas", () => {
    const p = load('version: "2.0"\nschemas:\n  $defs: {id: {type: string}}\n  ping: true\n').policy!;
    expect(Object.keys(p.schemas)).toEqual(["ping"]);
    expect(p.sharedDefs).toEqual({ id: { type: "string" } });
    expect(p.sharedDefsAt).toMatchObject({ line: 3, path: "schemas.$defs" });
  });

  it("finds no schema for names that exist on every object", () => {
    const p = load('version: "2.0"\nschemas:\n  __proto__: {type: object}\n  read: {type: object}\n').policy!;
    expect(p.schemas.toString).toBeUndefined();
    expect(p.schemas.constructor).toBeUndefined();
    expect(Object.keys(p.schemas)).toEqual(["__proto__", "read"]);
    expect(p.schemas["__proto__"]!.schema).toEqual({ type: "object" });
  });
});

describe("limits", () => {
  it.each([
    ["0", 0],
    ["1000", 1000],
  ])("accepts %s", (raw, value) => {
    expect(load(`version: "2.0"\nlimits:\n  max_tool_calls_total: ${raw}\n`).policy!.limits).toEqual({
      maxToolCallsTotal: value,
    });
  });
  it.each(["-1", "1.5", "10.0", '"10"', "1e3", "9007199254740993", "[1]"])("refuses %s", (raw) => {
    const d = load(`version: "2.0"\nlimits:\n  max_requests_total: ${raw}\n`).diagnostics;
    expect(d.map((x) => [x.code, x.path, x.line, x.column])).toEqual([
      ["E_POLICY_FIELD_TYPE", "limits.max_requests_total", 3, 23],
    ]);
  });
});

describe("tool_pins", () => {
  const hash = "ab".repeat(32);
  it("reads optional server_id and exact_schema_hash", () => {
    const p = load(
      `version: "2.0"\ntool_pins:\n  t:\n    tool_name: t\n    schema_hash: "${hash}"\n    meta_hash: "${hash}"\n    exact_schema_hash: "${hash}"\n`,
    ).policy!;
    expect(p.toolPins).toEqual([
      {
        key: "t",
        toolName: "t",
        schemaHash: hash,
        metaHash: hash,
        exactSchemaHash: hash,
        at: { file: "p.yaml", path: "tool_pins.t", line: 3, column: 3 },
      },
    ]);
  });
  it("refuses a 63- or 65-character hash", () => {
    for (const h of [hash.slice(1), hash + "a"]) {
      const d = load(
        `version: "2.0"\ntool_pins:\n  t: {tool_name: t, schema_hash: "${h}", meta_hash: "${hash}"}\n`,
      ).diagnostics;
      expect(d.map((x) => [x.code, x.path])).toEqual([["E_POLICY_PIN_HASH", "tool_pins.t.schema_hash"]]);
    }
  });
});

describe("whole-file problems", () => {
  it.each([
    ["", "E_POLICY_EMPTY"],
    ["# only a comment\n", "E_POLICY_EMPTY"],
    ["- a\n- b\n", "E_POLICY_FIELD_TYPE"],
    ["version: [\n", "E_SYNTAX"],
    ['version: "2.0"\nversion: "2.0"\n', "E_DUPLICATE_KEY"],
  ])("refuses %j", (text, code) => {
    const { policy, diagnostics } = load(text);
    expect(policy).toBeNull();
    expect(diagnostics[0]!.code).toBe(code);
  });

  it("reads JSON policies", () => {
    const p = load(
      '{"version": "2.0", "tools": {"deny": ["exec"]}, "schemas": {"t": {"type": "object"}}}',
    ).policy!;
    expect(p.tools.deny.map((e) => e.pattern)).toEqual(["exec"]);
    expect(p.schemas.t!.schema).toEqual({ type: "object" });
  });

  it("returns no policy exactly when some diagnostic is an error", () => {
    for (const c of corpusCases()) {
      const r = loadPolicyText(c.file, c.text);
      expect(r.policy === null, c.name).toBe(hasErrors(r.diagnostics));
    }
  });
});

describe("digest", () => {
  it("is the SHA-256 of the file's exact text", () => {
    const text = 'version: "2.0"\ntools:\n  deny: [exec]\n';
    expect(load(text).policy!.digest).toBe(sha256(text));
    expect(load(text + "\n").policy!.digest).not.toBe(load(text).policy!.digest);
  });
});

describe("loadPolicyFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-policy-"));

  it("reads a file and hashes its bytes, byte-order mark included", () => {
    const path = join(dir, "bom.yaml");
    const bytes = Buffer.from('\uFEFFversion: "2.0"\ntools:\n  deny: [exec]\n', "utf8");
    writeFileSync(path, bytes);
    const { policy, diagnostics } = loadPolicyFile(path);
    expect(diagnostics).toEqual([]);
    expect(policy!.digest).toBe(sha256(bytes));
    expect(policy!.file).toBe(path);
    expect(policy!.tools.deny[0]!.at).toEqual({ file: path, path: "tools.deny[0]", line: 3, column: 10 });
  });

  it("names the path and the OS reason when the file cannot be read", () => {
    const missing = join(dir, "missing.yaml");
    const { policy, diagnostics } = loadPolicyFile(missing);
    expect(policy).toBeNull();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      severity: "error",
      code: "E_POLICY_READ",
      file: missing,
      line: 0,
      column: 0,
    });
    expect(diagnostics[0]!.message).toContain(missing);
    expect(diagnostics[0]!.message).toContain("ENOENT");
    expect(loadPolicyFile(dir).diagnostics[0]!.message).toContain("EISDIR");
  });

  it("refuses text that is not UTF-8", () => {
    const path = join(dir, "latin1.yaml");
    writeFileSync(path, Buffer.from([0x76, 0x3a, 0x20, 0xe9, 0x0a]));
    expect(loadPolicyFile(path).diagnostics.map((d) => d.code)).toEqual(["E_POLICY_ENCODING"]);
  });
});

describe("restrict_scope_contract: scope_value as a list (several roots)", () => {
  const contract = (value: string, type = "path_prefix") =>
    policyTools(
      `restrict_scope: [read]\n  restrict_scope_contract: {scope_type: ${type}, scope_value: ${value}, scope_match_mode: prefix}\n`,
    );

  it("reads every root for path_prefix; the first is the scope value", () => {
    const c = load(contract("[/a, /b/c]")).policy!.tools.restrictScopeContract!;
    expect([c.scopeValue, c.scopeValues]).toEqual(["/a", ["/a", "/b/c"]]);
    expect(load(contract("/a")).policy!.tools.restrictScopeContract!.scopeValues).toBeUndefined();
  });

  it.each([
    ["[]", "path_prefix", "4:67", "scope_value is an empty list"],
    ["[/a, b]", "path_prefix", "4:72", "a path_prefix scope must be an absolute path, got 'b'"],
    ["[x, y]", "resource", "4:64", "a list of scope values is accepted for scope_type 'path_prefix' only"],
  ])("refuses %s for %s", (value, type, at, message) => {
    const loaded = load(contract(value, type));
    expect(loaded.policy).toBeNull();
    const error = loaded.diagnostics.find((d) => d.code === "E_POLICY_CONTRACT_VALUE")!;
    expect(`${error.line}:${error.column}`).toBe(at);
    expect(error.message).toContain(message);
  });
});
