import {
  BACKSLASH,
  COLON,
  COMMA,
  CR,
  DOT,
  isDigit,
  isHexDigit,
  isSimpleEscape,
  LBRACE,
  LBRACKET,
  LF,
  LOWER_E,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  LOWER_U,
  MINUS,
  NINE,
  ONE,
  PLUS,
  QUOTE,
  RBRACE,
  RBRACKET,
  SPACE,
  TAB,
  UPPER_E,
  ZERO,
} from "./jsonChars.js";
import { isCanonicalLiteral } from "./jsonNumber.js";
import {
  describe,
  duplicateError,
  numberError,
  stringError,
  syntaxError,
  tooDeepError,
  type StrictJsonError,
} from "./scanErrors.js";
import {
  levelElementIndex,
  levelIsObject,
  levelMemberName,
  levelNamesStart,
  levelNameSet,
  openNames,
} from "./scanStacks.js";

export type { StrictJsonError } from "./scanErrors.js";

/**
 * Up to this many member names an object's names are compared linearly (cheaper than a Set for the small
 * objects of a JSON-RPC frame); past it they move into a Set, so a hostile object with 100 000 members
 * still costs linear time.
 */
const LINEAR_NAME_LIMIT = 8;

/**
 * What the last scan found of number literals a double would change (see jsonNumber.ts): how many, and
 * where, when the scan was asked to note them. Read right after scanStrictJson returns.
 */
export const lastScanNumbers: { inexact: number; spans: Array<[number, number]> | null } = {
  inexact: 0,
  spans: null,
};

/**
 * One pass over the text that checks the RFC 8259 grammar, duplicate member names and nesting depth, and
 * returns the first problem in reading order, or `null` when the text is acceptable. It builds no values
 * and never recurses: open containers live on explicit stacks bounded by `maxDepth`. It also counts the
 * number literals a double would not write back as they are (`lastScanNumbers`; their spans too with
 * `noteSpans`).
 */
export function scanStrictJson(text: string, maxDepth: number, noteSpans = false): StrictJsonError | null {
  lastScanNumbers.inexact = 0;
  lastScanNumbers.spans = noteSpans ? [] : null;
  const isObject = levelIsObject;
  const memberName = levelMemberName;
  const elementIndex = levelElementIndex;
  const names = openNames;
  let namesTop = 0;
  /** How far this scan wrote into the scratch stacks, for the clean-up. */
  let namesHigh = 0;
  let levelsHigh = 0;
  let depth = 0;
  let pos = skipWhitespace(text, 0);
  let expectName = false;
  nextSpecial = -1;

  try {
    for (;;) {
      if (expectName) {
        expectName = false;
        const top = depth - 1;
        if (text.charCodeAt(pos) !== QUOTE) {
          return syntaxError(pos, "expected a member name in double quotes", depth, true);
        }
        const end = skipString(text, pos);
        if (end < 0) return stringError(text, pos, depth, true);
        let name = text.slice(pos + 1, end - 1);
        if (name.indexOf("\\") !== -1) name = JSON.parse(text.slice(pos, end)) as string;
        memberName[top] = name;

        // Duplicate check: linear over this object's names while few, then a Set.
        const set = levelNameSet[top];
        if (set !== undefined) {
          if (set.has(name)) return duplicateError(pos, name, depth);
          set.add(name);
        } else {
          const start = levelNamesStart[top]!;
          for (let i = start; i < namesTop; i++) {
            if (names[i] === name) return duplicateError(pos, name, depth);
          }
          if (namesTop - start < LINEAR_NAME_LIMIT) {
            names[namesTop++] = name;
            if (namesTop > namesHigh) namesHigh = namesTop;
          } else {
            const many = new Set(names.slice(start, namesTop));
            many.add(name);
            levelNameSet[top] = many;
          }
        }

        pos = skipWhitespace(text, end);
        if (text.charCodeAt(pos) !== COLON) {
          return syntaxError(pos, "expected ':' after a member name", depth, false);
        }
        pos = skipWhitespace(text, pos + 1);
      }

      // A value starts at `pos`.
      const c = text.charCodeAt(pos);
      if (c === LBRACE || c === LBRACKET) {
        if (depth === maxDepth) return tooDeepError(pos, depth, maxDepth);
        const level = depth++;
        if (depth > levelsHigh) levelsHigh = depth;
        pos = skipWhitespace(text, pos + 1);
        if (c === LBRACE) {
          isObject[level] = 1;
          levelNamesStart[level] = namesTop;
          levelNameSet[level] = undefined;
          if (text.charCodeAt(pos) !== RBRACE) {
            expectName = true;
            continue;
          }
        } else {
          isObject[level] = 0;
          elementIndex[level] = 0;
          if (text.charCodeAt(pos) !== RBRACKET) continue;
        }
        // An empty container closes at once.
        depth--;
        pos++;
      } else if (c === QUOTE) {
        const end = skipString(text, pos);
        if (end < 0) return stringError(text, pos, depth, false);
        pos = end;
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        const end = skipNumber(text, pos);
        if (end < 0) return numberError(text, pos, depth);
        if (mayBeInexact(text, pos, end) && !isCanonicalLiteral(text.slice(pos, end))) {
          lastScanNumbers.inexact++;
          lastScanNumbers.spans?.push([pos, end]);
        }
        pos = end;
      } else if (c === LOWER_T || c === LOWER_F || c === LOWER_N) {
        const word = c === LOWER_T ? "true" : c === LOWER_F ? "false" : "null";
        if (!text.startsWith(word, pos)) return syntaxError(pos, `expected '${word}'`, depth, false);
        pos += word.length;
      } else {
        return syntaxError(pos, `${describe(text, pos)} where a value was expected`, depth, false);
      }

      // After a value: close containers until one continues with ','.
      for (;;) {
        pos = skipWhitespace(text, pos);
        if (depth === 0) {
          if (pos === text.length) return null;
          return syntaxError(pos, `${describe(text, pos)} after the end of the JSON value`, 0, false);
        }
        const top = depth - 1;
        const d = text.charCodeAt(pos);
        if (d === COMMA) {
          pos = skipWhitespace(text, pos + 1);
          if (isObject[top] === 1) expectName = true;
          else elementIndex[top]!++;
          break;
        }
        if (isObject[top] === 1) {
          if (d !== RBRACE) {
            return syntaxError(pos, `${describe(text, pos)} where ',' or '}' was expected`, depth, false);
          }
          namesTop = levelNamesStart[top]!;
          levelNameSet[top] = undefined;
        } else if (d !== RBRACKET) {
          return syntaxError(pos, `${describe(text, pos)} where ',' or ']' was expected`, depth, false);
        }
        depth--;
        pos++;
      }
    }
  } finally {
    // Drop the member names (slices may share the text's memory) so the scratch stacks keep nothing alive.
    for (let i = 0; i < namesHigh; i++) names[i] = "";
    for (let i = 0; i < levelsHigh; i++) {
      memberName[i] = "";
      levelNameSet[i] = undefined;
    }
  }
}

function skipWhitespace(text: string, pos: number): number {
  for (;;) {
    const c = text.charCodeAt(pos);
    if (c === SPACE || c === LF || c === CR || c === TAB) pos++;
    else return pos;
  }
}

/**
 * Where the next backslash or control character is (the text length when there is none), as last searched.
 * Reset per scan and only moved forward, so a plain string costs two native searches, not a JS loop.
 */
let nextSpecial = -1;
const SPECIAL = /[\\\x00-\x1f]/g;

function findSpecial(text: string, from: number): number {
  SPECIAL.lastIndex = from;
  return SPECIAL.test(text) ? SPECIAL.lastIndex - 1 : text.length;
}

/** `pos` is at the opening quote. Returns the offset after the closing quote, or -1 (see `stringError`). */
function skipString(text: string, pos: number): number {
  const close = text.indexOf('"', pos + 1);
  if (close === -1) return -1;
  if (nextSpecial <= pos) nextSpecial = findSpecial(text, pos + 1);
  if (nextSpecial > close) return close + 1;
  return skipEscapedString(text, pos);
}

function skipEscapedString(text: string, pos: number): number {
  for (let i = pos + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(++i);
      if (e === LOWER_U) {
        if (!isHexDigit(text.charCodeAt(i + 1)) || !isHexDigit(text.charCodeAt(i + 2))) return -1;
        if (!isHexDigit(text.charCodeAt(i + 3)) || !isHexDigit(text.charCodeAt(i + 4))) return -1;
        i += 4;
      } else if (!isSimpleEscape(e)) {
        return -1;
      }
    } else if (!(c >= SPACE)) {
      // A control character, or NaN: the text ended inside the string.
      return -1;
    }
  }
}

/**
 * Whether a number literal needs the full check: short plain integers (no fraction, no exponent, up to 15
 * digits, not `-0`) are always written back by a double exactly as they are, and are most numbers.
 */
function mayBeInexact(text: string, start: number, end: number): boolean {
  if (end - start > 15) return true;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT || c === LOWER_E || c === UPPER_E) return true;
  }
  return text.charCodeAt(start) === MINUS && text.charCodeAt(start + 1) === ZERO;
}

/**
 * RFC 8259 number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Returns the offset after it,
 * or -1 (see `numberError`).
 */
function skipNumber(text: string, pos: number): number {
  let i = pos;
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (first === ZERO) {
    i++;
    if (isDigit(text.charCodeAt(i))) return -1;
  } else if (first >= ONE && first <= NINE) {
    i++;
    while (isDigit(text.charCodeAt(i))) i++;
  } else {
    return -1;
  }
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === LOWER_E || e === UPPER_E) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}
