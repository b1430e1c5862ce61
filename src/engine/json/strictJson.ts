import { ToolgateError } from "../errors.js";
import { buildJson } from "./buildJson.js";
import { JsonNumber, numberOf } from "./jsonNumber.js";
import { lastScanNumbers, scanStrictJson, type StrictJsonError } from "./scanner.js";

export type StrictJsonResult = { ok: true; value: unknown } | StrictJsonError;

export interface StrictJsonOptions {
  /** Deepest allowed nesting of arrays and objects (`[]` is depth 1, a bare scalar depth 0). Default 64. */
  maxDepth?: number;
  /**
   * Keep every number literal a double would change as a JsonNumber (jsonNumber.ts), so writeJson writes
   * it back as it came. Frames toolgate forwards are read so; a text without such a literal costs nothing.
   */
  exactNumbers?: boolean;
}

export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Parses RFC 8259 JSON and rejects what a lenient parser would quietly accept: member names repeated in
 * one object (compared after unescaping, at any depth) and nesting deeper than `maxDepth`. When a text has
 * several problems, the first one in reading order is reported, so an unterminated run of 100 000 `[` is
 * "too deep" at the 65th bracket, found before anything recursive runs.
 *
 * `__proto__` is an ordinary own member of the result, as with `JSON.parse`.
 */
export function parseStrictJson(text: string, options?: StrictJsonOptions): StrictJsonResult {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new ToolgateError(
      "E_JSON_OPTIONS",
      `maxDepth must be a non-negative integer, got ${String(maxDepth)}`,
    );
  }
  // The scan validates the full grammar without building anything; the native parser then builds the
  // value at native speed from text already known to be acceptable.
  const problem = scanStrictJson(text, maxDepth);
  if (problem !== null) return problem;
  if (options?.exactNumbers === true && lastScanNumbers.inexact > 0) {
    return { ok: true, value: buildJson(text, (literal) => numberOf(literal)) };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    // Unreachable while the scanner and the native parser agree on the grammar; fail closed if they don't.
    return {
      ok: false,
      code: "E_JSON_SYNTAX",
      message: `invalid JSON: ${e instanceof Error ? e.message : String(e)}`,
      offset: 0,
    };
  }
}

/**
 * True when a parsed value nests arrays and objects deeper than `maxDepth` (counted as parseStrictJson
 * counts it). Iterative, so a value of any depth is measured without exhausting the stack: for answers that
 * arrived through a parser toolgate does not control (an SDK transport) before they are passed on.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null || current instanceof JsonNumber) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
