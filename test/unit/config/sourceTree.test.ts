import { describe, expect, it } from "vitest";
import {
  parseFrontMatter,
  parseYamlSource,
  toPlain,
  unknownKeyWarnings,
} from "../../../src/config/sourceTree.js";

describe("parseYamlSource", () => {
  it("keeps line, column and path of nested values", () => {
    const { root, diagnostics } = parseYamlSource("p.yaml", "tools:\n  deny: [exec, shell]\n");
    expect(diagnostics).toEqual([]);
    if (root?.kind !== "map") throw new Error("expected a map");
    const tools = root.entries[0]!.value;
    if (tools.kind !== "map") throw new Error("expected a map");
    const deny = tools.entries[0]!.value;
    if (deny.kind !== "seq") throw new Error("expected a list");
    expect(deny.items[1]!.at).toEqual({ file: "p.yaml", path: "tools.deny[1]", line: 2, column: 16 });
  });

  it("reports duplicate keys as errors with their line", () => {
    const { root, diagnostics } = parseYamlSource("p.yaml", "a: 1\nb: 2\na: 3\n");
    expect(root).toBeNull();
    expect(diagnostics[0]).toMatchObject({ severity: "error", code: "E_DUPLICATE_KEY", line: 3 });
  });

  it("reports syntax errors with a position", () => {
    const { diagnostics } = parseYamlSource("p.yaml", "a: [1,\n");
    expect(diagnostics[0]).toMatchObject({ severity: "error", code: "E_SYNTAX" });
    expect(diagnostics[0]!.line).toBeGreaterThan(0);
  });

  it("distinguishes a quoted 'null' from null", () => {
    const { root } = parseYamlSource("p.yaml", 'a: "null"\nb: null\nc:\n');
    expect(toPlain(root!)).toEqual({ a: "null", b: null, c: null });
  });

  it("keeps __proto__ as an ordinary key", () => {
    const { root } = parseYamlSource("p.json", '{"__proto__": {"x": 1}}');
    const plain = toPlain(root!) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
  });
});

describe("parseFrontMatter", () => {
  it("reports lines as they are in the Markdown file", () => {
    const { root, body } = parseFrontMatter(
      "role.md",
      "---\nmcp_tools:\n  github: get_*\n---\nYou review code.\n",
    );
    if (root?.kind !== "map") throw new Error("expected a map");
    expect(root.entries[0]!.keyAt.line).toBe(2);
    expect(body).toBe("You review code.\n");
  });
});

describe("unknownKeyWarnings", () => {
  it("names the line and suggests the close key", () => {
    const { root } = parseYamlSource("p.yaml", "version: '2.0'\ntool:\n  allow: []\n");
    if (root?.kind !== "map") throw new Error("expected a map");
    const w = unknownKeyWarnings(root, ["version", "tools"], "the policy");
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({
      code: "W_UNKNOWN_FIELD",
      line: 2,
      path: "tool",
      hint: "did you mean 'tools'?",
    });
  });
});
