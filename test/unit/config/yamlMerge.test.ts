// YAML merge keys (`<<: *base`) in every file toolgate reads as YAML: merged maps add their keys (so a schema
// with a merge compiles, instead of E_SCHEMA_COMPILE `unknown keyword "<<"`), but a merged setting is never
// overridden: a key also written in the map, or given by two merged maps, with another value is
// E_MERGE_OVERRIDE at its line; a merge of something other than maps is E_MERGE_KEY.
import { describe, expect, it } from "vitest";
import { parseConfigYaml } from "../../../src/config/configYaml.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { parseRoleFile } from "../../../src/config/roleFile.js";
import { parseYamlSource, toPlain } from "../../../src/config/sourceTree.js";
import { parseTokensFile } from "../../../src/config/tokensFile.js";
import { formatDiagnostic, type Diagnostic } from "../../../src/engine/model/diagnostics.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";

const codes = (diagnostics: readonly Diagnostic[]): string[] =>
  diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.path}`);

function plain(text: string): unknown {
  const { root, diagnostics } = parseYamlSource("m.yaml", text);
  expect(diagnostics.map(formatDiagnostic)).toEqual([]);
  return toPlain(root!);
}

describe("merge keys in parseYamlSource", () => {
  it("add the merged map's keys where << stands, with paths of the map they land in and lines of where they are written", () => {
    const text = "base: &b\n  x: 1\n  y: [a]\nm:\n  first: 0\n  <<: *b\n  last: 2\n";
    expect(plain(text)).toEqual({ base: { x: 1, y: ["a"] }, m: { first: 0, x: 1, y: ["a"], last: 2 } });
    const { root } = parseYamlSource("m.yaml", text);
    if (root?.kind !== "map") throw new Error("a map");
    const m = root.entries[1]!.value;
    if (m.kind !== "map") throw new Error("a map");
    expect(m.entries.map((e) => [e.key, e.keyAt.path, e.keyAt.line])).toEqual([
      ["first", "m.first", 5],
      ["x", "m.x", 2],
      ["y", "m.y", 3],
      ["last", "m.last", 7],
    ]);
  });

  it("take a list of maps, inline maps, and merges inside merged maps", () => {
    expect(plain("a: &a {x: 1}\nb: &b {y: 2, <<: *a}\nm: {<<: [*b, {z: 3}]}\n")).toMatchObject({
      m: { x: 1, y: 2, z: 3 },
    });
  });

  it("accept a key given again with the same value", () => {
    expect(plain("a: &a {x: 1, y: {k: [1]}}\nm: {<<: *a, x: 1, y: {k: [1]}}\n")).toMatchObject({
      m: { x: 1, y: { k: [1] } },
    });
  });

  it("refuse a key of the map that overrides a merged one, at the key's line", () => {
    const { root, diagnostics } = parseYamlSource("m.yaml", "a: &a\n  x: 1\nm:\n  <<: *a\n  x: 2\n");
    expect(codes(diagnostics)).toEqual(["5:3 E_MERGE_OVERRIDE m.x"]);
    expect(diagnostics[0]!.message).toContain("merged with << (line 2)");
    expect(root).not.toBeNull();
  });

  it("refuse two merged maps that disagree, whichever order", () => {
    for (const list of ["[*a, *b]", "[*b, *a]"]) {
      const { diagnostics } = parseYamlSource("m.yaml", `a: &a {x: 1}\nb: &b {x: 2}\nm:\n  <<: ${list}\n`);
      expect(codes(diagnostics)).toEqual(["4:3 E_MERGE_OVERRIDE m.x"]);
    }
  });

  it("refuse a merge of a scalar or a list of scalars", () => {
    for (const value of ["5", "[1, 2]", "*s"]) {
      const { diagnostics } = parseYamlSource("m.yaml", `s: &s text\nm:\n  <<: ${value}\n`);
      expect(diagnostics.map((d) => d.code)).toContain("E_MERGE_KEY");
    }
  });

  it("a quoted '<<' is an ordinary key; << twice in one map is a duplicate", () => {
    expect(plain("m: {'<<': 1}\n")).toEqual({ m: { "<<": 1 } });
    const twice = parseYamlSource("m.yaml", "a: &a {x: 1}\nm:\n  <<: *a\n  <<: *a\n");
    expect(codes(twice.diagnostics)).toEqual(["4:3 E_DUPLICATE_KEY m"]);
    expect(twice.root).toBeNull();
  });

  it("aliases expanding to more than 100,000 values are refused (billion laughs)", () => {
    const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i <= 6; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(", ")}]`,
      );
    const { diagnostics } = parseYamlSource("m.yaml", lines.join("\n") + "\n");
    expect(diagnostics.map((d) => d.code)).toEqual(["E_TOO_MANY_ALIASES"]);
  });
});

describe("merge keys in every loader", () => {
  it("policy: a merged schema compiles; a merged enforcement setting cannot be loosened", () => {
    const ok = loadPolicyText(
      "p.yaml",
      [
        'version: "2.0"',
        "tools:",
        "  allow: [read_file, list_dir]",
        "schemas:",
        "  read_file: &path_only",
        "    type: object",
        "    additionalProperties: false",
        "    properties: { path: { type: string, maxLength: 4096 } }",
        "    required: [path]",
        "  list_dir:",
        "    <<: *path_only",
        "enforcement: { unconstrained_tools: deny }",
        "",
      ].join("\n"),
    );
    expect(ok.diagnostics.map(formatDiagnostic)).toEqual([]);
    const schema = compilePolicy(ok.policy!).schemas.get("list_dir")!;
    expect(schema.ok).toBe(true);
    const loosened = loadPolicyText(
      "p.yaml",
      [
        'version: "2.0"',
        "shared: &strict { unconstrained_tools: deny, denied_tools: hide }",
        "enforcement:",
        "  <<: *strict",
        "  unconstrained_tools: allow",
        "",
      ].join("\n"),
    );
    expect(loosened.policy).toBeNull();
    expect(loosened.diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic)).toEqual([
      "p.yaml:5:3: error E_MERGE_OVERRIDE enforcement.unconstrained_tools: 'unconstrained_tools' is written here and, with another value, in the map merged with << (line 2); a merged setting is never overridden (hint: give 'unconstrained_tools' in one place: remove it here or from the merged map, or stop merging that map)",
    ]);
  });

  it("config.yaml, a role's front matter and the tokens file merge too", () => {
    const config = parseConfigYaml(
      "config.yaml",
      "mcp_tools:\n  fs: &ro [read_*, list_*]\n  memory: *ro\nmapping_mcp_servers: {<<: {code: [fs]}}\n",
    );
    expect(config.diagnostics).toEqual([]);
    expect(config.config.aliases.map((a) => a.alias)).toEqual(["code"]);
    const role = parseRoleFile("r", "r.md", "---\nbase: &b {fs: [read_*]}\nmcp_tools:\n  <<: *b\n---\n");
    expect(role.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(role.role.mcpTools?.map((e) => e.key)).toEqual(["fs"]);
    const tokens = parseTokensFile(
      "tokens.yaml",
      [
        "- {name: a, token: a-token-0123456789abcdef, <<: &ctx {role: reviewer, session: nightly}}",
        "- {name: b, token: b-token-0123456789abcdef, <<: *ctx}",
        "- {name: c, token: c-token-0123456789abcdef, <<: *ctx, role: admin}",
        "",
      ].join("\n"),
    );
    expect(codes(tokens.diagnostics)).toEqual(["3:56 E_MERGE_OVERRIDE [2].role"]);
    const shared = parseTokensFile(
      "tokens.yaml",
      [
        "- {name: a, token: a-token-0123456789abcdef, <<: &ctx {role: reviewer, session: nightly}}",
        "- {name: b, token: b-token-0123456789abcdef, <<: *ctx}",
        "",
      ].join("\n"),
    );
    expect(shared.diagnostics).toEqual([]);
    expect(shared.entries.map((e) => e.selection)).toEqual([
      { skills: [], role: "reviewer", session: "nightly" },
      { skills: [], role: "reviewer", session: "nightly" },
    ]);
  });
});
