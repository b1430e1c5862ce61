import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { lintPolicy } from "../../../src/config/policyLint.js";

function lint(text: string) {
  const { policy, diagnostics } = loadPolicyText("p.yaml", text);
  if (policy === null) throw new Error(`test policy does not load: ${JSON.stringify(diagnostics)}`);
  return lintPolicy(policy);
}
const found = (text: string) => lint(text).map((d) => [d.code, d.path]);
const v2 = (body: string) => `version: "2.0"\n${body}`;

describe("literal stars", () => {
  it.each([
    ["read_*_file", "it blocks nothing except a tool literally named 'read_*_file'"],
    ["a*b*c", "it blocks nothing except a tool literally named 'a*b*c'"],
    ["*a*b*", "it blocks nothing except tools whose names literally contain 'a*b'"],
    ["x*y*", "it blocks nothing except tools whose names literally start with 'x*y'"],
    ["*x*y", "it blocks nothing except tools whose names literally end with 'x*y'"],
  ])("deny %s", (pattern, words) => {
    const [d] = lint(v2(`tools:\n  deny: ["${pattern}"]\n`));
    expect(d).toMatchObject({
      severity: "warning",
      code: "W_DENY_LITERAL_STAR",
      path: "tools.deny[0]",
      line: 3,
      column: 10,
      file: "p.yaml",
    });
    expect(d!.message).toContain(words);
  });

  it("allow: an interior star matches nothing", () => {
    const [d] = lint(v2('tools:\n  allow: ["read_*_file"]\nenforcement: {unconstrained_tools: allow}\n'));
    expect(d).toMatchObject({ code: "W_ALLOW_LITERAL_STAR", path: "tools.allow[0]" });
    expect(d!.message).toContain("matches nothing except a tool literally named 'read_*_file'");
  });

  it("obligation lists too", () => {
    expect(found(v2('tools:\n  approval_required: ["deploy_*_prod"]\n'))).toEqual([
      ["W_OBLIGATION_LITERAL_STAR", "tools.approval_required[0]"],
    ]);
  });

  it.each(["*", "**", "****"])("the five forms expand: no literal-star warning for %s in deny", (pattern) => {
    expect(found(v2(`tools:\n  deny: ["${pattern}", "read_*", "*_file", "*search*", "exact"]\n`))).toEqual(
      [],
    );
  });
});

describe("allow-all", () => {
  it.each(["*", "**", "***"])("%s admits tools that do not exist yet", (pattern) => {
    const [d] = lint(v2(`tools:\n  allow: ["${pattern}"]\n`));
    expect(d).toMatchObject({ code: "W_ALLOW_ALL", path: "tools.allow[0]" });
    expect(d!.message).toContain("tools that do not exist yet");
  });
});

describe("unconstrained tools", () => {
  const allowed =
    'tools:\n  allow: ["read_file", "get_*", "write_file"]\n  deny: ["write_file"]\nschemas:\n  get_x: true\n';
  it("warns for exact allowed names without a schema, not for wildcards or denied names", () => {
    expect(found(v2(allowed))).toEqual([["W_UNCONSTRAINED", "tools.allow[0]"]]);
  });
  it("says calls will be refused under deny", () => {
    expect(found(v2(`${allowed}enforcement:\n  unconstrained_tools: deny\n`))).toEqual([
      ["W_UNCONSTRAINED_DENY", "tools.allow[0]"],
    ]);
  });
  it("is silent under allow", () => {
    expect(found(v2(`${allowed}enforcement:\n  unconstrained_tools: allow\n`))).toEqual([]);
  });
  it("is silent for a tool with a schema", () => {
    expect(found(v2('tools:\n  allow: ["t"]\nschemas:\n  t: true\n'))).toEqual([]);
  });
});

describe("schema bounds", () => {
  const schema = (body: string) => v2(`schemas:\n  t:\n${body.replace(/^/gm, "    ")}\n`);
  const bounds = (body: string) =>
    lint(schema(body))
      .filter((d) => d.code === "W_SCHEMA_BOUNDS")
      .map((d) => [d.path, d.hint, d.line]);
  const closed = "type: object\nadditionalProperties: false\nrequired: []\n";

  it("accepts a fully bounded schema", () => {
    expect(
      bounds(
        `${closed}properties:\n  s: {type: string, maxLength: 9}\n  a: {type: array, maxItems: 3, items: {type: string, maxLength: 9}}`,
      ),
    ).toEqual([]);
  });
  it("open object", () => {
    expect(bounds("type: object\nrequired: []")).toEqual([
      ["schemas.t", "add additionalProperties: false", 4],
    ]);
    expect(bounds("type: object\nrequired: []\nadditionalProperties: true")).toEqual([
      ["schemas.t.additionalProperties", "add additionalProperties: false", 6],
    ]);
    expect(bounds("type: object\nrequired: []\nadditionalProperties: {type: integer}")).toEqual([]);
  });
  it("object without required", () => {
    expect(bounds("type: object\nadditionalProperties: false")).toEqual([
      ["schemas.t", "add required: [...] (an empty list if every property is optional)", 4],
    ]);
  });
  it("required string that admits the empty string", () => {
    const body =
      "type: object\nadditionalProperties: false\nrequired: [a, b, c]\nproperties:\n  a: {type: string, maxLength: 5}\n  b: {type: string, maxLength: 5, minLength: 0}\n  c: {type: string, maxLength: 5, minLength: 1}";
    expect(bounds(body)).toEqual([
      ["schemas.t.properties.a", "add minLength: 1", 8],
      ["schemas.t.properties.b", "add minLength: 1", 9],
    ]);
  });
  it("unbounded strings and arrays, however deep", () => {
    const body = `${closed}properties:\n  list:\n    type: array\n    maxItems: 2\n    items:\n      anyOf:\n        - {type: string}\n        - {type: array, items: {type: integer}}`;
    expect(bounds(body)).toEqual([
      ["schemas.t.properties.list.items.anyOf[0]", "add maxLength", 13],
      ["schemas.t.properties.list.items.anyOf[1]", "add maxItems", 14],
    ]);
  });
  it("a $comment starting 'unbounded' leaves a length out on purpose; any other comment does not", () => {
    const body = `type: object\nadditionalProperties: false\nrequired: [a, c]\nproperties:\n  a: {type: string, $comment: "unbounded: a file's content"}\n  b: {type: array, $comment: "unbounded"}\n  c: {type: string, $comment: "no bound yet"}`;
    expect(bounds(body)).toEqual([
      ["schemas.t.properties.c", "add minLength: 1", 10],
      ["schemas.t.properties.c", "add maxLength", 10],
    ]);
  });
  it("strings fixed by enum or const need no bounds", () => {
    expect(
      bounds(`${closed}properties:\n  m: {type: string, enum: [a, b]}\n  k: {type: string, const: x}`),
    ).toEqual([]);
  });
  it("follows $ref to shared and tool-local $defs for required strings, and checks each definition once", () => {
    const text = v2(
      "schemas:\n  $defs:\n    loose: {type: string}\n  t:\n    type: object\n    additionalProperties: false\n    required: [a, b]\n    properties:\n      a: {$ref: '#/$defs/loose'}\n      b: {$ref: '#/$defs/local'}\n    $defs:\n      local: {type: string, maxLength: 3}\n  u:\n    type: object\n    additionalProperties: false\n    required: [a]\n    properties:\n      a: {$ref: '#/$defs/loose'}\n",
    );
    expect(
      lint(text)
        .filter((d) => d.code === "W_SCHEMA_BOUNDS")
        .map((d) => [d.path, d.hint]),
    ).toEqual([
      ["schemas.$defs.loose", "add maxLength"],
      ["schemas.t.properties.a", "add minLength: 1"],
      ["schemas.t.properties.b", "add minLength: 1"],
      ["schemas.u.properties.a", "add minLength: 1"],
    ]);
  });
});

describe("reachability", () => {
  it.each([
    ['allow: ["read_*"]\n  approval_required: ["admin_*"]', 1],
    ['allow: ["read_*"]\n  approval_required: ["read_file"]', 0],
    ['allow: ["read_file"]\n  approval_required: ["read_*"]', 0],
    ['allow: ["*_file"]\n  approval_required: ["*_dir"]', 1],
    ['allow: ["*_file"]\n  approval_required: ["read_*"]', 0],
    ['allow: ["*file*"]\n  approval_required: ["deploy"]', 1],
    ['deny: ["deploy"]\n  approval_required: ["deploy"]', 1],
    ['deny: ["*"]\n  approval_required: ["anything_*"]', 1],
    ['deny: ["dep*"]\n  approval_required: ["deploy_*"]', 1],
    ['deny: ["*ploy*"]\n  approval_required: ["*_deploy"]', 1],
    ['deny: ["deploy_*"]\n  approval_required: ["dep*"]', 0],
  ])("%s → %i unreachable", (tools, n) => {
    const d = lint(v2(`tools:\n  ${tools}\nenforcement: {unconstrained_tools: allow}\n`)).filter(
      (x) => x.code === "W_OBLIGATION_UNREACHABLE",
    );
    expect(d).toHaveLength(n);
    if (n > 0) expect(d[0]!.path).toBe("tools.approval_required[0]");
  });

  it("schemas for denied or never-allowed tools, and schema keys with stars", () => {
    const text = v2(
      'tools:\n  allow: ["read_*"]\n  deny: ["read_secret"]\nschemas:\n  read_secret: true\n  write_file: true\n  "read_*": true\n  read_file: true\n',
    );
    expect(found(text)).toEqual([
      ["W_SCHEMA_UNREACHABLE", "schemas.read_secret"],
      ["W_SCHEMA_UNREACHABLE", "schemas.write_file"],
      ["W_SCHEMA_KEY_STAR", 'schemas."read_*"'],
    ]);
  });
});

describe("output", () => {
  it("is sorted by position and every finding names file, line, column and path", () => {
    const d = lint(v2('tools:\n  deny: ["a*b*c"]\n  allow: ["*", "x"]\n'));
    expect(d.map((x) => `${x.line}:${x.column}`)).toEqual(["3:10", "4:11", "4:16"]);
    for (const x of d) {
      expect(x.severity).toBe("warning");
      expect(x.file).toBe("p.yaml");
      expect(x.path).not.toBe("");
    }
  });
});
