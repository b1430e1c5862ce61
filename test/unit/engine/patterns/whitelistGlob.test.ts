import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileWhitelistGlob, whitelistPatternProblem } from "../../../../src/engine/patterns/index.js";

const EMOJI = "\u{1F600}";
const HIGH = "\uD83D"; // lone high surrogate (first half of EMOJI)
const LOW = "\uDE00"; // lone low surrogate (second half of EMOJI)

describe("compileWhitelistGlob: matching", () => {
  const cases: Array<[pattern: string, name: string, expected: boolean]> = [
    // The spec's examples.
    ["get_*", "get_issue", true],
    ["get_*", "paginated_get", false],
    ["get", "get", true],
    ["get", "get_issue", false],
    ["get", "forget", false],
    ["get*_", "get_issue", false],
    ["get*_", "get_", true],
    ["get*_", "get_issue_", true],
    ["search_*", "search_code", true],
    ["create_pull_request", "create_pull_request", true],
    ["create_pull_request", "create_pull_requests", false],
    // '*' is any run, none included; the whole name must match.
    ["get_*", "get_", true],
    ["*", "", true],
    ["*", "a.b__c", true],
    ["**", "x", true],
    ["*_issue", "get_issue", true],
    ["*_issue", "get_issues", false],
    ["*ss*", "list_issues", true],
    ["*ss*", "list_isues", false],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["ab*ba", "aba", false],
    ["ab*ba", "abba", true],
    ["*ab*ab*", "abab", true],
    ["*ab*ab*", "aab", false],
    ["*ab*ab*", "xxabyyabzz", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "a.x.b.y.c", true],
    ["a*b*c", "acb", false],
    ["*a*?", "ab", true],
    ["*a*?", "a", false],
    // '?' is exactly one character.
    ["get_?", "get_a", true],
    ["get_?", "get_", false],
    ["get_?", "get_ab", false],
    ["?", "", false],
    ["??", "ab", true],
    ["*?", "", false],
    ["*?", "x", true],
    ["a?c", "a.c", true],
    ["a?c", "a?c", true],
    // One character is one code point.
    ["?", EMOJI, true],
    ["??", EMOJI, false],
    ["x?", `x${EMOJI}`, true],
    ["*?", EMOJI, true],
    ["?", HIGH, true],
    ["??", `${HIGH}${HIGH}`, true],
    [`*${LOW}`, EMOJI, false],
    [`${HIGH}*`, EMOJI, false],
    [`*${EMOJI}*`, `a${EMOJI}b`, true],
    // Case-sensitive, and regex metacharacters are literal.
    ["Get_*", "get_issue", false],
    ["get_*", "GET_ISSUE", false],
    ["a.c", "abc", false],
    ["a+", "aa", false],
    ["a+", "a+", true],
    ["[ab]", "a", false],
    ["[ab]", "[ab]", true],
    ["\\d*", "\\d1", true],
    ["\\d*", "1", false],
    ["^a$", "^a$", true],
  ];
  it.each(cases)("%j on %j is %s", (pattern, name, expected) => {
    expect(compileWhitelistGlob(pattern).matches(name)).toBe(expected);
  });

  it.each([
    ["get", true],
    ["get_*", false],
    ["get?", false],
    ["a.b", true],
  ])("%j isLiteral is %s", (pattern, isLiteral) => {
    const glob = compileWhitelistGlob(pattern);
    expect(glob.isLiteral).toBe(isLiteral);
    expect(glob.source).toBe(pattern);
    expect(glob.problem).toBeNull();
  });
});

describe("whitelistPatternProblem", () => {
  it.each([
    [5, /string.*number/],
    [null, /string.*null/],
    [true, /string.*boolean/],
    [["get_*"], /string.*list/],
    [{ a: 1 }, /string.*map/],
    ["", /empty/],
    [" get", /whitespace/],
    ["get issue", /whitespace/],
    ["get\t", /whitespace/],
    ["get\n", /whitespace/],
    ["get\u00a0x", /whitespace/],
    ["get_*,list_*", /comma.*"get_\*", "list_\*"/],
    ["get_*, list_*", /comma/],
  ])("%j is not a whitelist pattern (%s)", (value, message) => {
    expect(whitelistPatternProblem(value)).toMatch(message);
  });

  it.each(["get", "get_*", "?", "*", "a.b", "srv__tool", EMOJI])("%j is a valid pattern", (pattern) => {
    expect(whitelistPatternProblem(pattern)).toBeNull();
  });

  it.each([
    ["", ""],
    ["a,b", "a,b"],
    ["a b", "a b"],
    ["*, *", "x"],
  ])("an invalid pattern %j compiles to a matcher that matches nothing, not even %j", (pattern, name) => {
    const glob = compileWhitelistGlob(pattern);
    expect(glob.problem).toBe(whitelistPatternProblem(pattern));
    expect(glob.matches(name)).toBe(false);
    expect(glob.matches(pattern)).toBe(false);
  });
});

/** Straightforward backtracking matcher over code points (tests only; exponential in the worst case). */
function referenceGlob(pattern: readonly string[], name: readonly string[]): boolean {
  if (pattern.length === 0) return name.length === 0;
  const [head, ...rest] = pattern;
  if (head === "*")
    return referenceGlob(rest, name) || (name.length > 0 && referenceGlob(pattern, name.slice(1)));
  if (name.length === 0) return false;
  return (head === "?" || head === name[0]) && referenceGlob(rest, name.slice(1));
}

function referenceWhitelistMatch(pattern: string, name: string): boolean {
  if (whitelistPatternProblem(pattern) !== null) return false;
  return referenceGlob(Array.from(pattern), Array.from(name));
}

const nameUnit = fc.constantFrom("a", "b", ".", "_", EMOJI, HIGH, LOW);
const patternUnit = fc.oneof(nameUnit, fc.constantFrom("*", "?", "*", "?"));
const patternArb = fc.string({ unit: patternUnit, maxLength: 7 });
const nameArb = fc.string({ unit: nameUnit, maxLength: 8 });
/** A name built from the pattern by filling its wildcards, so that matches happen often. */
const filledName = (pattern: string) =>
  fc
    .array(fc.string({ unit: nameUnit, maxLength: 3 }), {
      minLength: pattern.length,
      maxLength: pattern.length,
    })
    .map((fills) =>
      Array.from(pattern)
        .map((ch, i) => (ch === "*" ? fills[i]! : ch === "?" ? fills[i]!.slice(0, 1) || "a" : ch))
        .join(""),
    );
const patternAndName = patternArb.chain((pattern) =>
  fc.tuple(fc.constant(pattern), fc.oneof(nameArb, filledName(pattern))),
);

describe("compileWhitelistGlob: properties", () => {
  it("agrees with a backtracking reference matcher", () => {
    fc.assert(
      fc.property(patternAndName, ([pattern, name]) => {
        expect(compileWhitelistGlob(pattern).matches(name)).toBe(referenceWhitelistMatch(pattern, name));
      }),
      { numRuns: 5000 },
    );
  });

  it("a valid pattern without wildcards matches only itself", () => {
    const literal = fc.string({ unit: nameUnit, minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(literal, nameArb, (pattern, name) => {
        const glob = compileWhitelistGlob(pattern);
        expect(glob.isLiteral).toBe(true);
        expect(glob.matches(name)).toBe(pattern === name);
        expect(glob.matches(pattern)).toBe(true);
      }),
    );
  });
});
