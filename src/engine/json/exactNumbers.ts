import { buildJson } from "./buildJson.js";
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

export function parseJsonExact(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): ExactJsonResult {
  const problem = scanStrictJson(text, maxDepth);
  if (problem !== null) return problem;
  const spans = new WeakMap<object, readonly [number, number]>();
  const result = buildJson(text, exactIntegerOf, spans);
  return { ok: true, value: result, spanOf: (container: object) => spans.get(container) };
}

/** Pins' reading of a literal: an integer beyond the safe range keeps its digits; the rest are doubles. */
function exactIntegerOf(literal: string, plainInteger: boolean): unknown {
  const n = Number(literal);
  return plainInteger && !Number.isSafeInteger(n) ? new ExactInteger(literal) : n;
}

/** True when the value holds an ExactInteger anywhere. */
export function hasExactInteger(value: unknown): boolean {
  if (value instanceof ExactInteger) return true;
  if (Array.isArray(value)) return value.some(hasExactInteger);
  if (typeof value === "object" && value !== null) return Object.values(value).some(hasExactInteger);
  return false;
}
