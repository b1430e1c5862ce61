import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolgateError } from "../../../../src/engine/errors.js";
import { compileMandateGlob, MANDATE_MAX_LENGTH } from "../../../../src/engine/patterns/index.js";

const EMOJI = "\u{1F600}";

describe("compileMandateGlob: matching", () => {
  // Patterns are written as JS strings: "\\*" is the two-character pattern \* .
  const cases: Array<[pattern: string, name: string, expected: boolean]> = [
    // '*' is any run without '.', none included.
    ["get_*", "get_issue", true],
    ["get_*", "get_", true],
    ["get_*", "paginated_get", false],
    ["get_*", "get_.x", false],
    ["*", "", true],
    ["*", "abc", true],
    ["*", "a__b", true],
    ["*", "a.b", false],
    ["*", ".", false],
    ["github.*", "github.get_issue", true],
    ["github.*", "github.", true],
    ["github.*", "github.repos.delete", false],
    ["a*b", "ab", true],
    ["a*b", "axxb", true],
    ["a*b", "a.b", false],
    ["*.x", "a.x", true],
    ["*.x", ".x", true],
    ["*.x", "a.b.x", false],
    ["*.*", "a.b", true],
    ["*.*", "a.b.c", false],
    ["*a*", "bab", true],
    ["*a*", "b.a", false],
    // '**' is any run, '.' included.
    ["**", "", true],
    ["**", "a.b.c", true],
    ["**", "...", true],
    ["github.**", "github.repos.delete", true],
    ["github.**", "github", false],
    ["**.x", "a.b.x", true],
    ["**.x", "x", false],
    ["a**b", "a.c.b", true],
    ["**.*", "a.b.c", true],
    ["**.*", "a.b.c.", true],
    ["**.*", "abc", false],
    ["*.**", "a.b.c", true],
    ["*.**", "a", false],
    // Three or more stars behave like '**'.
    ["***", "a.b", true],
    ["***", "", true],
    ["a****b", "a.x.b", true],
    // '\' escapes the next character.
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["\\*", "", false],
    ["\\\\", "\\", true],
    ["\\\\", "\\\\", false],
    ["\\a", "a", true],
    ["\\.", ".", true],
    ["a\\**", "a*bc", true],
    ["a\\**", "a*", true],
    ["a\\**", "a", false],
    ["a\\**", "a*.b", false],
    ["*\\*", "xy*", true],
    ["*\\*", "x.y*", false],
    ["\\**\\*", "*a*", true],
    ["\\**\\*", "*a.b*", false],
    ["\\*\\*", "**", true],
    ["\\*\\*", "a.b", false],
    ["\\\\*", "\\abc", true],
    ["\\\\*", "abc", false],
    [`\\${EMOJI}`, EMOJI, true],
    // Everything else is literal, case-sensitive, whole-name.
    ["a?", "ab", false],
    ["a?", "a?", true],
    ["[ab]", "a", false],
    ["[ab]", "[ab]", true],
    ["a+", "a+", true],
    ["Get*", "get", false],
    ["get", "GET", false],
    ["get", "get", true],
    ["get", "get_issue", false],
    ["get", "forget", false],
    ["", "", true],
    ["", "a", false],
  ];
  it.each(cases)("%j on %j is %s", (pattern, name, expected) => {
    const glob = compileMandateGlob(pattern);
    expect(glob.source).toBe(pattern);
    expect(glob.matches(name)).toBe(expected);
  });
});

function compileError(pattern: string): ToolgateError {
  try {
    compileMandateGlob(pattern);
  } catch (error) {
    if (error instanceof ToolgateError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(pattern)} to be rejected`);
}

describe("compileMandateGlob: errors and limits", () => {
  it.each(["\\", "abc\\", "a*\\", "\\\\\\", "\\*\\"])(
    "rejects the trailing lone backslash in %j",
    (pattern) => {
      const error = compileError(pattern);
      expect(error.code).toBe("E_PATTERN_TRAILING_ESCAPE");
      expect(error.message).toContain(JSON.stringify(pattern));
      expect(error.hint).toMatch(/\\\\/);
    },
  );

  it("accepts an even run of trailing backslashes", () => {
    expect(compileMandateGlob("a\\\\\\\\").matches("a\\\\")).toBe(true);
  });

  it(`accepts a pattern of ${MANDATE_MAX_LENGTH} characters and rejects one more`, () => {
    expect(MANDATE_MAX_LENGTH).toBe(256);
    const longest = "a".repeat(MANDATE_MAX_LENGTH);
    expect(compileMandateGlob(longest).matches(longest)).toBe(true);
    const error = compileError("a".repeat(MANDATE_MAX_LENGTH + 1));
    expect(error.code).toBe("E_PATTERN_TOO_LONG");
    expect(error.message).toContain(String(MANDATE_MAX_LENGTH));
    expect(error.message).toContain(String(MANDATE_MAX_LENGTH + 1));
  });

  it("counts escapes in the pattern's length", () => {
    expect(compileError("\\*".repeat(129)).code).toBe("E_PATTERN_TOO_LONG");
    expect(compileMandateGlob("\\*".repeat(128)).matches("*".repeat(128))).toBe(true);
  });

  it("counts lengths in code points", () => {
    expect(
      compileMandateGlob(EMOJI.repeat(MANDATE_MAX_LENGTH)).matches(EMOJI.repeat(MANDATE_MAX_LENGTH)),
    ).toBe(true);
    expect(compileError(EMOJI.repeat(MANDATE_MAX_LENGTH + 1)).code).toBe("E_PATTERN_TOO_LONG");
    expect(compileMandateGlob("**").matches(EMOJI.repeat(MANDATE_MAX_LENGTH))).toBe(true);
    expect(compileMandateGlob("*").matches(EMOJI.repeat(MANDATE_MAX_LENGTH + 1))).toBe(false);
  });

  it.each(["*", "**", "a**", "**a", "*a*"])("%j never matches a name longer than the limit", (pattern) => {
    const glob = compileMandateGlob(pattern);
    expect(glob.matches("a".repeat(MANDATE_MAX_LENGTH))).toBe(true);
    expect(glob.matches("a".repeat(MANDATE_MAX_LENGTH + 1))).toBe(false);
    expect(glob.matches("a".repeat(10 * MANDATE_MAX_LENGTH))).toBe(false);
  });
});

/**
 * Reference: translate the pattern to a regex by escaping (tests only). Returns null for a trailing lone
 * backslash.
 */
function referenceMandateRegex(pattern: string): RegExp | null {
  const chars = Array.from(pattern);
  let source = "";
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\\") {
      if (i + 1 >= chars.length) return null;
      source += chars[++i]!.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&");
    } else if (ch === "*") {
      let j = i;
      while (chars[j + 1] === "*") j++;
      source += j > i ? "[\\s\\S]*" : "[^.]*";
      i = j;
    } else {
      source += ch.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&");
    }
  }
  return new RegExp(`^${source}$`, "u");
}

const nameUnit = fc.constantFrom("a", "b", ".", "_", "*", "\\", "?", EMOJI);
const patternUnit = fc.constantFrom("a", "b", ".", "_", "*", "*", "\\", "?");
const patternArb = fc.string({ unit: patternUnit, maxLength: 8 });
const nameArb = fc.string({ unit: nameUnit, maxLength: 8 });
/** A name built from the pattern by filling its stars and dropping some backslashes. */
const filledName = (pattern: string) =>
  fc
    .array(fc.string({ unit: nameUnit, maxLength: 3 }), {
      minLength: pattern.length,
      maxLength: pattern.length,
    })
    .map((fills) =>
      Array.from(pattern)
        .map((ch, i) => (ch === "*" ? fills[i]! : ch === "\\" && fills[i]!.length % 2 === 0 ? "" : ch))
        .join(""),
    );
const patternAndName = patternArb.chain((pattern) =>
  fc.tuple(fc.constant(pattern), fc.oneof(nameArb, filledName(pattern))),
);

describe("compileMandateGlob: properties", () => {
  it("agrees with a regex reference, and rejects exactly the patterns with a trailing lone backslash", () => {
    fc.assert(
      fc.property(patternAndName, ([pattern, name]) => {
        const reference = referenceMandateRegex(pattern);
        if (reference === null) {
          expect(compileError(pattern).code).toBe("E_PATTERN_TRAILING_ESCAPE");
        } else {
          expect(compileMandateGlob(pattern).matches(name)).toBe(reference.test(name));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("an escaped name matches itself and only itself", () => {
    fc.assert(
      fc.property(nameArb, nameArb, (target, other) => {
        const glob = compileMandateGlob(target.replace(/[\\*]/g, "\\$&"));
        expect(glob.matches(target)).toBe(true);
        expect(glob.matches(other)).toBe(other === target);
      }),
    );
  });

  it("a '*' pattern's matches never contain more dots than the pattern's literal dots", () => {
    const starOnly = fc.string({ unit: fc.constantFrom("a", ".", "*"), maxLength: 6 });
    fc.assert(
      fc.property(starOnly, nameArb, (pattern, name) => {
        fc.pre(!pattern.includes("**"));
        const dots = (s: string) => s.split(".").length - 1;
        if (compileMandateGlob(pattern).matches(name)) expect(dots(name)).toBe(dots(pattern));
      }),
    );
  });
});
