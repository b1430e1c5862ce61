import { isCanonicalLiteral } from "./jsonNumber.js";
import { escapePointerToken } from "./pointer.js";

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const ONE = 0x31;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LOWER_B = 0x62;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const LBRACE = 0x7b;
const RBRACE = 0x7d;

/**
 * Up to this many member names an object's names are compared linearly (cheaper than a Set for the small
 * objects of a JSON-RPC frame); past it they move into a Set, so a hostile object with 100 000 members
 * still costs linear time.
 */
const LINEAR_NAME_LIMIT = 8;

// Scratch stacks reused by every scan (the scan is synchronous and never re-entered), so the hot path
// allocates nothing but member-name strings. Indexed by nesting level, outermost first.
/** 1 for an open object, 0 for an open array. */
const levelIsObject: number[] = [];
/** Per open object: the name of the member being read. */
const levelMemberName: string[] = [];
/** Per open array: the index of the element being read. */
const levelElementIndex: number[] = [];
/** Per open object: where its names start in `openNames`. */
const levelNamesStart: number[] = [];
/** Per open object with many members: its names, replacing the linear list. */
const levelNameSet: (Set<string> | undefined)[] = [];
/** Member names of every open object, innermost object's names last (`namesTop` in a scan). */
const openNames: string[] = [];

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

function isSimpleEscape(c: number): boolean {
  return (
    c === QUOTE ||
    c === BACKSLASH ||
    c === SLASH ||
    c === LOWER_B ||
    c === LOWER_F ||
    c === LOWER_N ||
    c === LOWER_R ||
    c === LOWER_T
  );
}

function isHexDigit(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
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

// ---- Error paths: off the hot path, so they re-read the text to say exactly what is wrong.

/** JSON pointer of the value being read; `namePending` leaves out the innermost object's member. */
function pointer(depth: number, namePending: boolean): string {
  let path = "";
  const last = namePending ? depth - 1 : depth;
  for (let level = 0; level < last; level++) {
    const token =
      levelIsObject[level] === 1
        ? escapePointerToken(levelMemberName[level]!)
        : String(levelElementIndex[level]);
    path += "/" + token;
  }
  return path;
}

function syntaxError(offset: number, detail: string, depth: number, namePending: boolean): StrictJsonError {
  const path = pointer(depth, namePending);
  const where = path === "" ? "" : ` (in ${path})`;
  return {
    ok: false,
    code: "E_JSON_SYNTAX",
    message: `invalid JSON at offset ${offset}${where}: ${detail}`,
    offset,
    path,
  };
}

function stringError(text: string, pos: number, depth: number, namePending: boolean): StrictJsonError {
  for (let i = pos + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (Number.isNaN(c)) return syntaxError(i, "unterminated string", depth, namePending);
    if (c < SPACE) {
      const hex = c.toString(16).padStart(4, "0").toUpperCase();
      return syntaxError(i, `control character U+${hex} must be escaped in a string`, depth, namePending);
    }
    if (c !== BACKSLASH) continue;
    const e = text.charCodeAt(++i);
    if (e === LOWER_U) {
      for (let k = 1; k <= 4; k++) {
        if (!isHexDigit(text.charCodeAt(i + k))) {
          return syntaxError(i + k, "a \\u escape needs four hexadecimal digits", depth, namePending);
        }
      }
      i += 4;
    } else if (Number.isNaN(e)) {
      return syntaxError(i, "unterminated string", depth, namePending);
    } else if (!isSimpleEscape(e)) {
      return syntaxError(i, `invalid escape '\\${text[i]}' in a string`, depth, namePending);
    }
  }
}

function numberError(text: string, pos: number, depth: number): StrictJsonError {
  let i = pos;
  if (text.charCodeAt(i) === MINUS) i++;
  const first = text.charCodeAt(i);
  if (!isDigit(first)) return syntaxError(i, "expected a digit", depth, false);
  i++;
  if (first === ZERO && isDigit(text.charCodeAt(i))) {
    return syntaxError(i, "a number may not have leading zeros", depth, false);
  }
  while (isDigit(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) {
      return syntaxError(i, "expected a digit after the decimal point", depth, false);
    }
    while (isDigit(text.charCodeAt(i))) i++;
  }
  i++; // past the e/E: only the exponent can have failed now
  const sign = text.charCodeAt(i);
  if (sign === PLUS || sign === MINUS) i++;
  return syntaxError(i, "expected a digit in the exponent", depth, false);
}

function duplicateError(offset: number, name: string, depth: number): StrictJsonError {
  const path = pointer(depth, false);
  const quoted = JSON.stringify(name);
  const shown = quoted.length > 80 ? `${quoted.slice(0, 77)}…"` : quoted;
  return {
    ok: false,
    code: "E_JSON_DUPLICATE_KEY",
    message: `duplicate member name ${shown} at ${path} (offset ${offset}): an object may name each member only once`,
    offset,
    path,
  };
}

function tooDeepError(offset: number, depth: number, maxDepth: number): StrictJsonError {
  return {
    ok: false,
    code: "E_JSON_TOO_DEEP",
    message: `JSON nested deeper than ${maxDepth} levels at offset ${offset}`,
    offset,
    path: pointer(depth, false),
  };
}

/** `end of input` or the character at `pos`, spelled so that invisible characters stay visible. */
function describe(text: string, pos: number): string {
  if (pos >= text.length) return "end of input";
  const cp = text.codePointAt(pos)!;
  if (cp < SPACE || cp === 0x7f || cp === 0xfeff || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0xa0) {
    return `character U+${cp.toString(16).padStart(4, "0").toUpperCase()}`;
  }
  return `character '${String.fromCodePoint(cp)}'`;
}

/**
 * Why a text is not strict JSON. `offset` is an index into the text (UTF-16 code units, as JavaScript
 * strings count). `path` is the JSON pointer of the offending value or member: for a duplicate name, the
 * duplicate member; for nesting too deep, the array or object that went one level too far; for a syntax
 * error, the value being read (or the object whose member name was expected).
 */
export type StrictJsonError = {
  ok: false;
  code: "E_JSON_SYNTAX" | "E_JSON_DUPLICATE_KEY" | "E_JSON_TOO_DEEP";
  message: string;
  offset: number;
  path?: string;
};
