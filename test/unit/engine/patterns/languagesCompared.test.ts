import { describe, expect, it } from "vitest";
import {
  compileMandateGlob,
  compilePolicyWildcard,
  compileWhitelistGlob,
} from "../../../../src/engine/patterns/index.js";

/**
 * The three pattern languages read the same text differently. This table pins the differences so that a
 * change to one language, or a pattern carried from one surface to another, shows up here.
 *   policy:    the policy file's five forms; every expanding '*' crosses '.', interior stars are literal.
 *   mandate:   '*' stops at '.', '**' crosses it, '\' escapes.
 *   whitelist: '*' any run, '?' one character, no escapes; "" and patterns with ',' or spaces match nothing.
 */
const table: Array<[pattern: string, name: string, policy: boolean, mandate: boolean, whitelist: boolean]> = [
  ["a*", "a.b", true, false, true],
  ["a*", "ab", true, true, true],
  ["*", "a.b", true, false, true],
  ["*", "", true, true, true],
  ["**", "a.b", true, true, true],
  ["**", "", true, true, true],
  ["***", "a.b", true, true, true],
  ["a*b", "axb", false, true, true],
  ["a*b", "a.b", false, false, true],
  ["a*b", "a*b", true, true, true],
  ["*.x", "a.x", true, true, true],
  ["*.x", "a.b.x", true, false, true],
  ["**.x", "a.b.x", false, true, true],
  ["**.x", "**.x", true, true, true],
  ["read_*_file", "read_config_file", false, true, true],
  ["read_*_file", "read_*_file", true, true, true],
  ["*search*", "github.search.code", true, false, true],
  ["*search*", "code_search", true, true, true],
  ["*a*b*", "xa_by", false, true, true],
  ["*a*b*", "xa*by", true, true, true],
  ["github.*", "github.repos.delete", true, false, true],
  ["get_?", "get_a", false, false, true],
  ["get_?", "get_?", true, true, true],
  ["\\*", "*", false, true, false],
  ["\\*", "\\x", true, false, true],
  ["", "", true, true, false],
];

describe("the same pattern in the three languages", () => {
  it.each(table)(
    "%j on %j: policy %s, mandate %s, whitelist %s",
    (pattern, name, policy, mandate, whitelist) => {
      expect(compilePolicyWildcard(pattern).matches(name)).toBe(policy);
      expect(compileMandateGlob(pattern).matches(name)).toBe(mandate);
      expect(compileWhitelistGlob(pattern).matches(name)).toBe(whitelist);
    },
  );

  it("the table shows a difference between the policy wildcard and the mandate glob in both directions", () => {
    expect(table.some(([, , policy, mandate]) => policy && !mandate)).toBe(true);
    expect(table.some(([, , policy, mandate]) => !policy && mandate)).toBe(true);
  });
});
