import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicyWildcard, type PolicyWildcardForm } from "../../../../src/engine/patterns/index.js";

describe("compilePolicyWildcard: the five forms", () => {
  const forms: Array<[pattern: string, form: PolicyWildcardForm, literal: string, hasLiteralStar: boolean]> =
    [
      ["read_file", "exact", "read_file", false],
      ["", "exact", "", false],
      ["*", "all", "", false],
      ["**", "all", "", false],
      ["***", "all", "", false],
      ["read_*", "prefix", "read_", false],
      ["*_file", "suffix", "_file", false],
      ["*search*", "substring", "search", false],
      ["read_*_file", "exact", "read_*_file", true],
      ["a*b*c", "exact", "a*b*c", true],
      ["*a*b*", "substring", "a*b", true],
      ["**a", "suffix", "*a", true],
      ["a**", "prefix", "a*", true],
      ["**a**", "substring", "*a*", true],
      ["*a", "suffix", "a", false],
      ["a*", "prefix", "a", false],
      ["*a*", "substring", "a", false],
      ["*.*", "substring", ".", false],
    ];
  it.each(forms)("%j is the %s form with literal %j", (pattern, form, literal, hasLiteralStar) => {
    const wildcard = compilePolicyWildcard(pattern);
    expect(wildcard.source).toBe(pattern);
    expect(wildcard.form).toBe(form);
    expect(wildcard.literal).toBe(literal);
    expect(wildcard.hasLiteralStar).toBe(hasLiteralStar);
  });
});

describe("compilePolicyWildcard: matching", () => {
  const cases: Array<[pattern: string, name: string, expected: boolean]> = [
    // "*" matches all tools, including ones that do not exist yet and the empty name.
    ["*", "read_file", true],
    ["*", "", true],
    ["*", "github.delete_repo", true],
    // "**" and longer runs are the substring form with an empty substring: everything, like "*".
    ["**", "anything.at__all", true],
    ["**", "", true],
    ["***", "x", true],
    ["***", "", true],
    // prefix
    ["read_*", "read_file", true],
    ["read_*", "read_", true],
    ["read_*", "xread_file", false],
    ["read_*", "Read_file", false],
    ["get_*", "get_issue", true],
    ["get_*", "paginated_get", false],
    // suffix
    ["*_file", "read_file", true],
    ["*_file", "_file", true],
    ["*_file", "read_file_x", false],
    // substring
    ["*search*", "search", true],
    ["*search*", "code_search_all", true],
    ["*search*", "github.search", true],
    ["*search*", "sear_ch", false],
    ["*search*", "SEARCH", false],
    // exact: no star
    ["read_file", "read_file", true],
    ["read_file", "read_file2", false],
    ["read_file", "Read_File", false],
    ["get", "get", true],
    ["get", "get_issue", false],
    ["get", "forget", false],
    // "" has no star: exact match against the empty name only.
    ["", "", true],
    ["", "a", false],
    // An interior star is a literal asterisk.
    ["read_*_file", "read_config_file", false],
    ["read_*_file", "read__file", false],
    ["read_*_file", "read_*_file", true],
    ["a*b*c", "abc", false],
    ["a*b*c", "axbyc", false],
    ["a*b*c", "a*b*c", true],
    // Interior stars inside the substring form: "*a*b*" searches for the three characters a*b.
    ["*a*b*", "a*b", true],
    ["*a*b*", "xa*by", true],
    ["*a*b*", "ab", false],
    ["*a*b*", "axb", false],
    // Leading or trailing star runs: the star after the first is literal.
    ["**a", "x*a", true],
    ["**a", "xa", false],
    ["a**", "a*x", true],
    ["a**", "ax", false],
    // A wildcard star crosses '.' and '__' namespace separators.
    ["github.*", "github.repos.delete", true],
    ["*.delete", "github.repos.delete", true],
    ["fs__*", "fs__write__file", true],
    ["*__write*", "srv__write__file", true],
    // Empty remainder.
    ["*a", "a", true],
    ["a*", "a", true],
    ["*a*", "a", true],
    ["*a*", "", false],
  ];
  it.each(cases)("%j on %j is %s", (pattern, name, expected) => {
    expect(compilePolicyWildcard(pattern).matches(name)).toBe(expected);
  });
});

/** The spec's rules read literally, as a regex built by escaping (tests only). */
function referencePolicyMatch(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  if (/^\*+$/.test(pattern)) return true;
  const leading = pattern.startsWith("*");
  const trailing = pattern.endsWith("*");
  const middle = pattern.slice(leading ? 1 : 0, trailing ? pattern.length - 1 : pattern.length);
  const escaped = middle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const any = "[\\s\\S]*";
  return new RegExp(`^${leading ? any : ""}${escaped}${trailing ? any : ""}$`).test(name);
}

const unit = fc.constantFrom("a", "b", ".", "_", "*");
const patternArb = fc.string({ unit, maxLength: 6 });
const nameArb = fc.string({ unit, maxLength: 8 });
/** A name built from the pattern by filling its stars, so that matches happen often. */
const patternAndName = patternArb.chain((pattern) =>
  fc.tuple(
    fc.constant(pattern),
    fc.oneof(
      nameArb,
      fc
        .array(nameArb, { minLength: pattern.split("*").length, maxLength: pattern.split("*").length })
        .map((fills) => pattern.split("*").reduce((acc, part, i) => acc + part + (fills[i] ?? ""), "")),
    ),
  ),
);

describe("compilePolicyWildcard: properties", () => {
  it("agrees with a regex reference of the spec's rules", () => {
    fc.assert(
      fc.property(patternAndName, ([pattern, name]) => {
        expect(compilePolicyWildcard(pattern).matches(name)).toBe(referencePolicyMatch(pattern, name));
      }),
      { numRuns: 3000 },
    );
  });

  it("a pattern always matches its own text", () => {
    fc.assert(fc.property(patternArb, (pattern) => compilePolicyWildcard(pattern).matches(pattern)));
  });

  it("a pattern without a star matches exactly one name", () => {
    const starless = fc.string({ unit: fc.constantFrom("a", "b", ".", "_"), maxLength: 6 });
    fc.assert(
      fc.property(starless, nameArb, (pattern, name) => {
        expect(compilePolicyWildcard(pattern).matches(name)).toBe(pattern === name);
      }),
    );
  });

  it("the matcher agrees with the reported form and literal", () => {
    fc.assert(
      fc.property(patternAndName, ([pattern, name]) => {
        const w = compilePolicyWildcard(pattern);
        const byForm = {
          all: true,
          exact: name === w.literal,
          prefix: name.startsWith(w.literal),
          suffix: name.endsWith(w.literal),
          substring: name.includes(w.literal),
        }[w.form];
        expect(w.matches(name)).toBe(byForm);
        expect(w.hasLiteralStar).toBe(w.literal.includes("*"));
      }),
      { numRuns: 1000 },
    );
  });
});
