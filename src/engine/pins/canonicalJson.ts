import { compareDecimals, decimalOf, decimalOfDouble, decimalText } from "../json/decimal.js";
import { JsonNumber, withLiterals } from "../json/jsonNumber.js";
import canonicalize from "canonicalize";
import { ToolgateError } from "../errors.js";
import { escapePointerToken } from "../json/pointer.js";

/**
 * RFC 8785 (JCS) canonical form of a JSON value: members sorted by UTF-16 code units, no whitespace,
 * numbers as ECMAScript prints doubles (so `100` and `1e2` are one value), minimal string escapes.
 *
 * Accepts exactly what JSON can express: null, booleans, finite numbers, well-formed strings, dense
 * arrays and plain objects. Anything else throws ToolgateError `E_CANONICALIZE` naming where it is, rather
 * than being quietly converted (NaN to null, a Date to its toJSON string, a function dropped). An object
 * member whose value is `undefined` is left out, as JSON.stringify does.
 *
 * A number kept as written (JsonNumber) is its double, as RFC 8785 has every number (pins' `schema_hash`
 * is defined so); one past the double range has no such form. With `exactNumbers`, it is its double when
 * the double holds it (`1.0` and `1e0` are `1`), else its exact value written out (`9007199254740993`,
 * `1e+400`): two arguments that differ only beyond a double's precision then never share a form (the
 * audit log's argument digest).
 */
export function canonicalJson(value: unknown, options: { exactNumbers?: boolean } = {}): string {
  const exact = { found: false };
  try {
    // The quick walk builds no paths; only a value that fails it is walked again to say where.
    if (!isJsonValue(value, new Set(), exact)) assertJsonValue(value, "", new Set());
  } catch (e) {
    if (e instanceof RangeError) throw cannot("the value is nested too deeply");
    throw e;
  }
  let text: string | undefined;
  try {
    text = !exact.found
      ? canonicalize(value)
      : options.exactNumbers === true
        ? withLiterals(() => canonicalize(exactForms(value)) ?? "")
        : canonicalize(doubleForms(value));
  } catch (e) {
    throw cannot(e instanceof Error ? e.message : String(e));
  }
  if (typeof text !== "string") throw cannot("the value has no JSON form");
  return text;
}

/** In unicode mode a paired surrogate is one code point, so only an unpaired one is category Cs. */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** No unpaired surrogate: the native check where the runtime has one (Node ≥ 20), else the pattern. */
function wellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return native === undefined ? !LONE_SURROGATE.test(s) : native.call(s);
}

function cannot(why: string): ToolgateError {
  return new ToolgateError("E_CANONICALIZE", `cannot put the value in RFC 8785 canonical JSON form: ${why}`);
}

/** The value with each JsonNumber its double (RFC 8785); one past the double range cannot be written. */
function doubleForms(value: unknown): unknown {
  if (value instanceof JsonNumber) {
    if (!Number.isFinite(value.value)) throw new Error(`${value.text} is beyond what a double holds`);
    return value.value;
  }
  if (Array.isArray(value)) return value.map(doubleForms);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "__proto__")
        Object.defineProperty(out, k, {
          value: doubleForms(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = doubleForms(v);
    }
    return out;
  }
  return value;
}

/** The value with each JsonNumber in its canonical form: a double when that holds it, else its exact text. */
function exactForms(value: unknown): unknown {
  if (value instanceof JsonNumber) {
    const decimal = decimalOf(value.text)!;
    if (decimal.sign === 0) return 0;
    const double = decimalOfDouble(value.value);
    return double !== null && compareDecimals(decimal, double) === 0
      ? value.value
      : new JsonNumber(decimalText(decimal));
  }
  if (Array.isArray(value)) return value.map(exactForms);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "__proto__")
        Object.defineProperty(out, k, {
          value: exactForms(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = exactForms(v);
    }
    return out;
  }
  return value;
}

/** What assertJsonValue accepts, without building a path per member (this runs once per audited call). */
function isJsonValue(value: unknown, open: Set<object>, exact: { found: boolean }): boolean {
  switch (typeof value) {
    case "boolean":
      return true;
    case "string":
      return wellFormed(value);
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (value instanceof JsonNumber) {
    exact.found = true;
    return decimalOf(value.text) !== null;
  }
  if (open.has(value)) return false;
  open.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!(i in value) || !isJsonValue(value[i], open, exact)) return false;
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (!wellFormed(key) || (member !== undefined && !isJsonValue(member, open, exact))) return false;
    }
  }
  open.delete(value);
  return true;
}

function assertJsonValue(value: unknown, path: string, open: Set<object>): void {
  const at = path === "" ? "the top level" : path;
  switch (typeof value) {
    case "boolean":
      return;
    case "string":
      if (LONE_SURROGATE.test(value)) throw cannot(`the string at ${at} has an unpaired surrogate`);
      return;
    case "number":
      if (!Number.isFinite(value)) throw cannot(`${String(value)} at ${at} is not a JSON number`);
      return;
    case "object":
      break;
    default:
      throw cannot(
        `${typeof value === "undefined" ? "undefined" : `a ${typeof value}`} at ${at} is not a JSON value`,
      );
  }
  if (value === null || value instanceof JsonNumber) return;
  if (open.has(value)) throw cannot(`the value contains itself at ${at}`);
  open.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw cannot(`the array at ${at} has a hole at index ${i}`);
      assertJsonValue(value[i], `${path}/${i}`, open);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      throw cannot(
        `${typeof name === "string" ? `a ${name}` : "an object that is not plain"} at ${at} is not a JSON value`,
      );
    }
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      const memberPath = `${path}/${escapePointerToken(key)}`;
      if (LONE_SURROGATE.test(key))
        throw cannot(`the member name at ${memberPath} has an unpaired surrogate`);
      if (member !== undefined) assertJsonValue(member, memberPath, open);
    }
  }
  open.delete(value);
}
