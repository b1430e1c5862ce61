// The bounds every YAML and JSON file is held to, at their edges: 256 levels load and 257 do not (E_TOO_DEEP
// at the line and column of the level too many, before any parser recurses); 10 MB loads and more does not
// (E_FILE_TOO_LARGE naming the file); keys are unique however they are spelled. And the policy of the issue:
// 250,000 allow entries (about 6 MB) validate, warnings and all, without a stack overflow.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validate } from "../../../src/cli/policyCommands.js";
import { parseJsoncSource } from "../../../src/config/jsoncSource.js";
import { parseFrontMatter, parseYamlSource } from "../../../src/config/sourceTree.js";
import { MAX_FILE_CHARS } from "../../../src/config/textBounds.js";
import type { Diagnostic } from "../../../src/engine/model/diagnostics.js";

const where = (diagnostics: readonly Diagnostic[]): string[] =>
  diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`);

describe("nesting", () => {
  it("256 levels load; the 257th is E_TOO_DEEP where it opens, in YAML flow and JSON alike", () => {
    for (const [name, parse] of [
      ["y.yaml", parseYamlSource],
      ["j.json", parseJsoncSource],
    ] as const) {
      expect(parse(name, "[".repeat(256) + "]".repeat(256)).diagnostics).toEqual([]);
      const text = "x:\n  " + "[".repeat(257) + "]".repeat(257) + "\n";
      const json = `{"x":\n  ${"[".repeat(257)}${"]".repeat(257)}}`;
      // In JSON the object around the list is a level too: its 256th `[` is one too many.
      expect(where(parse(name, name.endsWith(".json") ? json : text).diagnostics)).toEqual([
        `${name}:2:${name.endsWith(".json") ? 258 : 259} E_TOO_DEEP`,
      ]);
    }
  });

  it("block YAML: compact lists and indented maps are measured too", () => {
    expect(parseYamlSource("y.yaml", "- ".repeat(256) + "x\n").diagnostics).toEqual([]);
    expect(where(parseYamlSource("y.yaml", "- ".repeat(300) + "x\n").diagnostics)).toEqual([
      "y.yaml:1:513 E_TOO_DEEP",
    ]);
    const maps = Array.from({ length: 300 }, (_, i) => `${" ".repeat(i)}k:`).join("\n") + " x\n";
    expect(where(parseYamlSource("y.yaml", maps).diagnostics)).toEqual(["y.yaml:257:257 E_TOO_DEEP"]);
  });

  it("brackets inside strings and comments are not nesting", () => {
    const quoted = `a: "${"[".repeat(1000)}"\nb: '${"{".repeat(1000)}'\n# ${"[".repeat(1000)}\n`;
    expect(parseYamlSource("y.yaml", quoted).diagnostics).toEqual([]);
    const json = `{"a": "${"[".repeat(1000)}", /* ${"{".repeat(1000)} */ "b": 1}`;
    expect(parseJsoncSource("j.json", json).diagnostics).toEqual([]);
  });

  it("front matter reports the line in the Markdown file", () => {
    const r = parseFrontMatter("r.md", `\n---\nx: ${"[".repeat(300)}\n---\nbody\n`);
    expect(where(r.diagnostics)).toEqual(["r.md:3:260 E_TOO_DEEP"]);
  });
});

describe("size", () => {
  it("more than 10 MB is E_FILE_TOO_LARGE naming the file; nothing is parsed", () => {
    const big = "#".repeat(MAX_FILE_CHARS + 1);
    for (const [name, parse] of [
      ["big.yaml", parseYamlSource],
      ["big.json", parseJsoncSource],
    ] as const) {
      const r = parse(name, big);
      expect(r.root).toBeNull();
      expect(r.diagnostics.map((d) => [d.file, d.code, d.severity])).toEqual([
        [name, "E_FILE_TOO_LARGE", "error"],
      ]);
      expect(r.diagnostics[0]!.message).toContain("10.0 MB");
    }
    expect(parseYamlSource("ok.yaml", "#".repeat(MAX_FILE_CHARS)).diagnostics).toEqual([]);
  });
});

describe("keys", () => {
  it("a key given twice is refused however it is spelled, at the second one", () => {
    for (const text of ["a: 1\nb: 2\na: 3\n", "1: x\nb: 2\n'1': y\n", "{a: 1,\n b: 2,\n a: 3}\n"]) {
      const r = parseYamlSource("d.yaml", text);
      expect(r.root).toBeNull();
      expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([["E_DUPLICATE_KEY", 3]]);
    }
  });

  it("100,000 distinct keys load, each kept", () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `k${i}: ${i}`).join("\n") + "\n";
    const r = parseYamlSource("w.yaml", text);
    expect(r.diagnostics).toEqual([]);
    expect(r.root?.kind === "map" && r.root.entries.length).toBe(100_000);
  });
});

describe("the issue's policy: 250,000 allow entries", () => {
  it("validates, with a warning per unconstrained entry, and no stack overflow", () => {
    const dir = mkdtempSync(join(tmpdir(), "tg-big-policy-"));
    const file = join(dir, "policy.yaml");
    const lines = ['version: "2.0"', "tools:", "  allow:"];
    for (let i = 0; i < 250_000; i++) lines.push(`    - "fs__tool_${String(i).padStart(6, "0")}"`);
    lines.push("enforcement: { unconstrained_tools: warn }", "");
    writeFileSync(file, lines.join("\n"));
    const started = performance.now();
    let result: ReturnType<typeof validate>;
    try {
      result = validate(file, false, ["fs"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const { policy, diagnostics } = result;
    // Measured, not asserted (no timed assertions in unit tests): docs/policy-files.md quotes it.
    console.log(`validate, 250,000 allow entries: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(policy?.tools.allow).toHaveLength(250_000);
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(diagnostics.filter((d) => d.code === "W_UNCONSTRAINED")).toHaveLength(250_000);
    expect(diagnostics.filter((d) => d.code === "W_GATEWAY_NAME")).toHaveLength(250_000);
  }, 180_000);
});
