import { scanStrictJson } from "./scanner.js";
import { DEFAULT_MAX_JSON_DEPTH } from "./strictJson.js";
import type { StrictJsonError } from "./scanner.js";

/**
 * JSON parsing that keeps what a double loses: an integer literal (no fraction, no exponent) outside the
 * safe-integer range ±(2^53 − 1) becomes an ExactInteger holding its decimal digits as written, so
 * `9007199254740993` and `9007199254740992` stay two values. Every other number is a double, as
 * `JSON.parse` gives it. The text is first checked by the strict scanner (duplicate names, depth), so this
 * accepts exactly what parseStrictJson accepts.
 *
 * Also records where each object and array sits in the text (`spanOf`), so a caller can cut a member's
 * raw text out of a larger document (a tool's inputSchema out of a tools/list response).
 */

export class ExactInteger {
  /** The literal as written: an optional `-` and digits without leading zeros. */
  readonly digits: string;
  constructor(digits: string) {
    this.digits = digits;
  }
}

export type ExactJsonResult =
  | { ok: true; value: unknown; spanOf(container: object): readonly [number, number] | undefined }
  | StrictJsonError;

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

export function parseJsonExact(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): ExactJsonResult {
  const problem = scanStrictJson(text, maxDepth);
  if (problem !== null) return problem;
  const spans = new WeakMap<object, readonly [number, number]>();
  let pos = 0;

  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else return;
    }
  };
  const str = (): string => {
    const start = pos;
    pos++;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x5c) {
        escaped = true;
        pos += 2;
      } else if (c === 0x22) {
        pos++;
        break;
      } else {
        pos++;
      }
    }
    return escaped ? (JSON.parse(text.slice(start, pos)) as string) : text.slice(start + 1, pos - 1);
  };
  const value = (): unknown => {
    ws();
    const c = text[pos];
    if (c === "{") {
      const start = pos++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[pos] === "}") pos++;
      else {
        for (;;) {
          ws();
          const key = str();
          ws();
          pos++; // ':'
          const v = value();
          if (key === "__proto__") {
            Object.defineProperty(obj, key, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else {
            obj[key] = v;
          }
          ws();
          if (text[pos++] === "}") break;
        }
      }
      spans.set(obj, [start, pos]);
      return obj;
    }
    if (c === "[") {
      const start = pos++;
      const arr: unknown[] = [];
      ws();
      if (text[pos] === "]") pos++;
      else {
        for (;;) {
          arr.push(value());
          ws();
          if (text[pos++] === "]") break;
        }
      }
      spans.set(arr, [start, pos]);
      return arr;
    }
    if (c === '"') return str();
    if (c === "t") {
      pos += 4;
      return true;
    }
    if (c === "f") {
      pos += 5;
      return false;
    }
    if (c === "n") {
      pos += 4;
      return null;
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text)!;
    pos = NUMBER.lastIndex;
    const n = Number(m[0]);
    if (m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n)) return new ExactInteger(m[0]);
    return n;
  };

  const result = value();
  return { ok: true, value: result, spanOf: (container: object) => spans.get(container) };
}

/** True when the value holds an ExactInteger anywhere. */
export function hasExactInteger(value: unknown): boolean {
  if (value instanceof ExactInteger) return true;
  if (Array.isArray(value)) return value.some(hasExactInteger);
  if (typeof value === "object" && value !== null) return Object.values(value).some(hasExactInteger);
  return false;
}
