import {
  BACKSLASH,
  DOT,
  isDigit,
  isHexDigit,
  isSimpleEscape,
  LOWER_U,
  MINUS,
  PLUS,
  SPACE,
  ZERO,
} from "./jsonChars.js";
import { pointerAt } from "./scanStacks.js";

/**
 * The scanner's error paths: off the hot path, so they re-read the text to say exactly what is wrong, and
 * where (offset and JSON pointer).
 */

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

export function syntaxError(
  offset: number,
  detail: string,
  depth: number,
  namePending: boolean,
): StrictJsonError {
  const path = pointerAt(depth, namePending);
  const where = path === "" ? "" : ` (in ${path})`;
  return {
    ok: false,
    code: "E_JSON_SYNTAX",
    message: `invalid JSON at offset ${offset}${where}: ${detail}`,
    offset,
    path,
  };
}

export function stringError(text: string, pos: number, depth: number, namePending: boolean): StrictJsonError {
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

export function numberError(text: string, pos: number, depth: number): StrictJsonError {
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

export function duplicateError(offset: number, name: string, depth: number): StrictJsonError {
  const path = pointerAt(depth, false);
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

export function tooDeepError(offset: number, depth: number, maxDepth: number): StrictJsonError {
  return {
    ok: false,
    code: "E_JSON_TOO_DEEP",
    message: `JSON nested deeper than ${maxDepth} levels at offset ${offset}`,
    offset,
    path: pointerAt(depth, false),
  };
}

/** `end of input` or the character at `pos`, spelled so that invisible characters stay visible. */
export function describe(text: string, pos: number): string {
  if (pos >= text.length) return "end of input";
  const cp = text.codePointAt(pos)!;
  if (cp < SPACE || cp === 0x7f || cp === 0xfeff || (cp >= 0xd800 && cp <= 0xdfff) || cp === 0xa0) {
    return `character U+${cp.toString(16).padStart(4, "0").toUpperCase()}`;
  }
  return `character '${String.fromCodePoint(cp)}'`;
}
