import { ToolgateError } from "../errors.js";

/**
 * The mandate `tool_patterns` glob. It treats `.` the way a filesystem glob treats `/`:
 *
 *   `*`        any run of characters without a `.` (none included)
 *   `**`       any run of characters, `.` included; so does any longer run of stars (`***` = `**`),
 *              because a run of stars has no other sensible reading and `**` is the superset
 *   `\c`       the character c literally (`\*` a star, `\\` a backslash); a trailing lone `\` is an error
 *   otherwise  the character literally (`?`, `[`, `{` have no meaning here)
 *
 * The whole name must match, case-sensitively. This language differs on purpose from the policy file's
 * five-form wildcard (where every `*` crosses `.` and interior stars are literal); a test pins the two
 * against each other.
 *
 * Lengths are counted in Unicode code points. A pattern (its source text, escapes included) longer than
 * MANDATE_MAX_LENGTH is rejected when compiled; a name longer than that never matches.
 *
 * Matching simulates the pattern's token automaton with the set of token positions still alive, one name
 * character at a time: O(|name| × |pattern|) time, O(|pattern|) space, never exponential.
 */

export const MANDATE_MAX_LENGTH = 256;

export interface MandateGlob {
  readonly source: string;
  matches(name: string): boolean;
}

type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "star" } // does not cross '.'
  | { readonly kind: "globstar" }; // crosses '.'

function parse(pattern: string): Token[] {
  const chars = Array.from(pattern);
  if (chars.length > MANDATE_MAX_LENGTH) {
    throw new ToolgateError(
      "E_PATTERN_TOO_LONG",
      `tool pattern ${JSON.stringify(pattern.slice(0, 40) + "…")} is ${chars.length} characters long; ` +
        `the limit is ${MANDATE_MAX_LENGTH}`,
      "shorten the pattern, for example by replacing a long literal part with * or **",
    );
  }
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\\") {
      const escaped = chars[i + 1];
      if (escaped === undefined) {
        throw new ToolgateError(
          "E_PATTERN_TRAILING_ESCAPE",
          `tool pattern ${JSON.stringify(pattern)} ends with a lone backslash, which escapes nothing`,
          "write \\\\ for a literal backslash, or remove the trailing backslash",
        );
      }
      tokens.push({ kind: "literal", char: escaped });
      i++;
    } else if (ch === "*") {
      let run = 1;
      while (chars[i + 1] === "*") {
        run++;
        i++;
      }
      tokens.push({ kind: run === 1 ? "star" : "globstar" });
    } else {
      tokens.push({ kind: "literal", char: ch });
    }
  }
  return tokens;
}

/** Follow the empty-match edges: a star at position i can be skipped, reaching i + 1. */
function closeOverStars(tokens: readonly Token[], alive: Uint8Array): void {
  for (let i = 0; i < tokens.length; i++) {
    if (alive[i] === 1 && tokens[i]!.kind !== "literal") alive[i + 1] = 1;
  }
}

function automatonMatcher(tokens: readonly Token[]): (chars: readonly string[]) => boolean {
  const m = tokens.length;
  return (chars) => {
    let alive = new Uint8Array(m + 1);
    let next = new Uint8Array(m + 1);
    alive[0] = 1;
    closeOverStars(tokens, alive);
    for (const ch of chars) {
      next.fill(0);
      let any = false;
      for (let i = 0; i < m; i++) {
        if (alive[i] !== 1) continue;
        const token = tokens[i]!;
        if (token.kind === "literal") {
          if (token.char === ch) next[i + 1] = 1;
          else continue;
        } else if (token.kind === "globstar" || ch !== ".") {
          next[i] = 1;
        } else {
          continue;
        }
        any = true;
      }
      if (!any) return false;
      closeOverStars(tokens, next);
      [alive, next] = [next, alive];
    }
    return alive[m] === 1;
  };
}

export function compileMandateGlob(pattern: string): MandateGlob {
  const tokens = parse(pattern);
  let match: (name: string) => boolean;
  if (tokens.every((t) => t.kind === "literal")) {
    // The pattern is within the limit, so an equal name is too.
    const literal = tokens.map((t) => (t.kind === "literal" ? t.char : "")).join("");
    match = (name) => name === literal;
  } else {
    const run = automatonMatcher(tokens);
    match = (name) => {
      // A code point takes one or two code units: skip splitting names that are certainly too long.
      if (name.length > 2 * MANDATE_MAX_LENGTH) return false;
      const chars = Array.from(name);
      return chars.length <= MANDATE_MAX_LENGTH && run(chars);
    };
  }
  return Object.freeze({ source: pattern, matches: (name: string) => match(name) });
}
