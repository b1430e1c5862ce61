/**
 * The tool-whitelist glob (`allowedTools`, `mcp_tools`): `*` is any run of characters (none included),
 * `?` is exactly one character, everything else is literal; the whole name must match, case-sensitively.
 *
 * "Character" means one Unicode code point: `?` matches an emoji written as a surrogate pair, as a user
 * would expect, and never half of one. A lone surrogate counts as one character.
 *
 * Matching never backtracks. The pattern is compiled once into the segments between its stars. The first
 * segment is anchored at the start of the name and the last at the end; each middle segment is placed at
 * its leftmost fit after the previous one. Leftmost placement is always safe because a star absorbs
 * whatever is skipped, and placing a segment earlier leaves the most room for the rest. Each placement
 * search costs at most |name| × |segment| comparisons, so a match is O(|name| × |pattern|) in the worst
 * case and O(|name|) for patterns without `?` (string search).
 */

export interface WhitelistGlob {
  readonly source: string;
  /** No `*` and no `?`: the pattern names exactly one tool. */
  readonly isLiteral: boolean;
  /** Why the pattern is invalid (then it matches nothing), or null. Same text as whitelistPatternProblem. */
  readonly problem: string | null;
  matches(name: string): boolean;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  return `${typeof value === "number" ? "a number" : `a ${typeof value}`} (${String(value)})`;
}

/**
 * Why `pattern` cannot be a whitelist pattern, or null if it can. Callers warn with this message and treat
 * the pattern as matching nothing.
 */
export function whitelistPatternProblem(pattern: unknown): string | null {
  if (typeof pattern !== "string") {
    return `a tool pattern must be a string, but this is ${describeValue(pattern)}`;
  }
  if (pattern === "") {
    return "a tool pattern must not be empty (to block every tool of a server, give it an empty list)";
  }
  if (pattern.includes(",")) {
    return (
      `tool pattern ${JSON.stringify(pattern)} contains a comma; ` +
      `write the patterns as separate list items (${pattern
        .split(",")
        .map((p) => JSON.stringify(p.trim()))
        .join(", ")})`
    );
  }
  if (/\s/u.test(pattern)) {
    return `tool pattern ${JSON.stringify(pattern)} contains whitespace, which no tool name has; remove it`;
  }
  return null;
}

/** One character of a segment: a code point to compare, or null for `?`. */
type SegmentChar = string | null;

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function matchesAt(chars: readonly string[], segment: readonly SegmentChar[], at: number): boolean {
  for (let k = 0; k < segment.length; k++) {
    const want = segment[k];
    if (want !== null && chars[at + k] !== want) return false;
  }
  return true;
}

/** Code-point matcher, needed whenever the pattern has a `?`. */
function codePointMatcher(segments: readonly (readonly SegmentChar[])[]): (name: string) => boolean {
  const first = segments[0] ?? [];
  const last = segments[segments.length - 1] ?? [];
  const minLength = segments.reduce((sum, s) => sum + s.length, 0);
  const hasStar = segments.length > 1;
  return (name) => {
    const chars = Array.from(name);
    const n = chars.length;
    if (!hasStar) return n === first.length && matchesAt(chars, first, 0);
    if (n < minLength) return false;
    if (!matchesAt(chars, first, 0)) return false;
    const end = n - last.length;
    if (!matchesAt(chars, last, end)) return false;
    let cursor = first.length;
    for (let s = 1; s < segments.length - 1; s++) {
      const segment = segments[s]!;
      let at = cursor;
      while (at + segment.length <= end && !matchesAt(chars, segment, at)) at++;
      if (at + segment.length > end) return false;
      cursor = at + segment.length;
    }
    return true;
  };
}

/**
 * Code-unit matcher for patterns without `?` and without lone surrogates. It agrees with the code-point
 * matcher: a well-formed segment can only be found at code-point boundaries of the name.
 */
function codeUnitMatcher(segments: readonly string[]): (name: string) => boolean {
  const first = segments[0] ?? "";
  const last = segments[segments.length - 1] ?? "";
  const minLength = segments.reduce((sum, s) => sum + s.length, 0);
  return (name) => {
    if (name.length < minLength || !name.startsWith(first) || !name.endsWith(last)) return false;
    const end = name.length - last.length;
    let cursor = first.length;
    for (let s = 1; s < segments.length - 1; s++) {
      const segment = segments[s]!;
      const at = name.indexOf(segment, cursor);
      if (at < 0 || at + segment.length > end) return false;
      cursor = at + segment.length;
    }
    return true;
  };
}

export function compileWhitelistGlob(pattern: string): WhitelistGlob {
  const problem = whitelistPatternProblem(pattern);
  if (problem !== null) {
    // Fail closed even if a caller forgets to check first: an invalid pattern matches nothing.
    return Object.freeze({ source: String(pattern), isLiteral: false, problem, matches: () => false });
  }
  const isLiteral = !pattern.includes("*") && !pattern.includes("?");
  let match: (name: string) => boolean;
  if (isLiteral) {
    match = (name) => name === pattern;
  } else if (!pattern.includes("?") && !LONE_SURROGATE.test(pattern)) {
    match = codeUnitMatcher(pattern.split("*"));
  } else {
    const segments = pattern
      .split("*")
      .map((text) => Array.from(text, (ch): SegmentChar => (ch === "?" ? null : ch)));
    match = codePointMatcher(segments);
  }
  return Object.freeze({ source: pattern, isLiteral, problem: null, matches: (name: string) => match(name) });
}
