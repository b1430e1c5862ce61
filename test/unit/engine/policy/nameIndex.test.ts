import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PatternEntry } from "../../../../src/engine/model/policy.js";
import { compilePolicyWildcard } from "../../../../src/engine/patterns/index.js";
import { PolicyNameIndex } from "../../../../src/engine/policy/nameIndex.js";

const entry = (pattern: string, i = 0): PatternEntry => ({
  pattern,
  at: { file: "p.yaml", path: `tools.deny[${i}]`, line: i + 1, column: 1 },
});

/** The obvious implementation: scan the entries in order. */
function firstByScan(patterns: readonly string[], name: string): number {
  return patterns.findIndex((p) => compilePolicyWildcard(p).matches(name));
}

describe("PolicyNameIndex", () => {
  it.each([
    [["exec", "shell"], "shell", 1],
    [["read_*", "*_file"], "read_file", 0],
    [["*_file", "read_*"], "read_file", 0],
    [["*search*"], "web_search_v2", 0],
    [["read_*_file"], "read_config_file", -1],
    [["read_*_file"], "read_*_file", 0],
    [["**"], "anything", 0],
    [[""], "", 0],
    [[""], "x", -1],
    [["*a*b*"], "xa*by", 0],
    [["*a*b*"], "xaby", -1],
    [["srv.*"], "srv.tool", 0],
    [["*__delete"], "github__delete", 0],
    [["Exec"], "exec", -1],
    [["ab", "*b", "a*", "*"], "ab", 0],
    [["x", "*b", "a*", "*"], "ab", 1],
  ] as const)("%j on %s → entry %i", (patterns, name, expected) => {
    const index = new PolicyNameIndex(patterns.map(entry));
    const found = index.firstMatch(name);
    expect(found === undefined ? -1 : (patterns as readonly string[]).indexOf(found.pattern)).toBe(expected);
  });

  it("finds the same first entry as a scan, for any patterns and name", () => {
    const alphabet = fc.constantFrom("a", "b", "_", ".", "*");
    const word = fc.array(alphabet, { maxLength: 6 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), word, (patterns, name) => {
        const index = new PolicyNameIndex(patterns.map(entry));
        const found = index.firstMatch(name);
        const expected = firstByScan(patterns, name);
        // Duplicate patterns: the index must cite the earliest occurrence.
        expect(found === undefined ? -1 : patterns.indexOf(found.pattern)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
