import type { Ajv } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { compareDecimals, decimalOf, isIntegral, isMultipleOf, type Decimal } from "../json/decimal.js";
import { isJsonNumeric, JsonNumber, literalOf, writeJson } from "../json/jsonNumber.js";
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SINGLES, type SchemaObject } from "./schemaWalk.js";

/**
 * Schema keywords that compare numbers, made exact. Ajv compares doubles, so `maximum: 9007199254740993`
 * (a literal the policy keeps as written, see jsonNumber.ts) would admit `9007199254740992`, and an argument
 * `9007199254740993` would pass `enum: [9007199254740992]`. Such keywords are rewritten to toolgate's own
 * (`x-toolgate-maximum`, …) that compare the decimal literals exactly (decimal.ts):
 *
 * - in the schema used for ordinary arguments, only the keywords whose value holds a literal a double
 *   changes (the rest stay Ajv's, at Ajv's speed);
 * - in the schema used for arguments that hold such a literal, every number-comparing keyword (`minimum`,
 *   `maximum`, the exclusive ones, `multipleOf`, `const`, `enum`, `uniqueItems`, the integer `format`s),
 *   and Ajv is given a view of the arguments in which each JsonNumber is only its type (0 for an integer,
 *   0.5 otherwise); the keywords read the value itself from the arguments.
 *
 * Messages quote the schema's literal as written.
 */

const COMPARISONS = {
  minimum: { holds: (c: number) => c >= 0, words: ">=" },
  maximum: { holds: (c: number) => c <= 0, words: "<=" },
  exclusiveMinimum: { holds: (c: number) => c > 0, words: ">" },
  exclusiveMaximum: { holds: (c: number) => c < 0, words: "<" },
} as const;
type Comparison = keyof typeof COMPARISONS;
const PREFIX = "x-toolgate-";
const INTEGER_FORMATS: Record<string, [string, string]> = {
  int32: ["-2147483648", "2147483647"],
  int64: ["-9223372036854775808", "9223372036854775807"],
};

/** True when the value holds a JsonNumber anywhere. */
export function holdsJsonNumber(value: unknown): boolean {
  if (value instanceof JsonNumber) return true;
  if (Array.isArray(value)) return value.some(holdsJsonNumber);
  if (typeof value === "object" && value !== null) {
    for (const k in value) if (holdsJsonNumber((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

function holdsNumber(value: unknown): boolean {
  if (isJsonNumeric(value)) return true;
  if (Array.isArray(value)) return value.some(holdsNumber);
  if (typeof value === "object" && value !== null) return Object.values(value).some(holdsNumber);
  return false;
}

/**
 * The schema as Ajv is to compile it: number-comparing keywords made toolgate's where needed (`every`: all
 * of them, for arguments that hold JsonNumbers), every other JsonNumber (in `default`, `examples`) its double.
 */
export function exactSchema(schema: unknown, every: boolean): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const out: SchemaObject = {};
  for (const [keyword, value] of Object.entries(schema as SchemaObject)) {
    if (keyword in COMPARISONS || keyword === "multipleOf") {
      if (value instanceof JsonNumber || (every && typeof value === "number")) {
        define(out, PREFIX + keyword, literalOf(value as number | JsonNumber));
        continue;
      }
    } else if (keyword === "const" || keyword === "enum") {
      if (holdsJsonNumber(value) || (every && holdsNumber(value))) {
        define(out, PREFIX + keyword, value);
        continue;
      }
    } else if (every && keyword === "uniqueItems" && value === true) {
      define(out, PREFIX + keyword, true);
      continue;
    } else if (every && keyword === "format" && typeof value === "string" && value in INTEGER_FORMATS) {
      define(out, PREFIX + keyword, value);
      continue;
    } else if (SUBSCHEMA_MAPS.includes(keyword) && isPlainObject(value)) {
      const map: SchemaObject = {};
      for (const [name, sub] of Object.entries(value)) define(map, name, exactSchema(sub, every));
      define(out, keyword, map);
      continue;
    } else if (SUBSCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
      define(
        out,
        keyword,
        value.map((sub) => exactSchema(sub, every)),
      );
      continue;
    } else if (SUBSCHEMA_SINGLES.includes(keyword)) {
      define(out, keyword, exactSchema(value, every));
      continue;
    }
    define(out, keyword, asDoubles(value));
  }
  return out;
}

/** The value with every JsonNumber its double (what Ajv's meta-schema check and `default` see). */
export function asDoubles(value: unknown): unknown {
  if (value instanceof JsonNumber) return value.value;
  if (Array.isArray(value)) return value.map(asDoubles);
  if (isPlainObject(value)) {
    const out: SchemaObject = {};
    for (const [k, v] of Object.entries(value)) define(out, k, asDoubles(v));
    return out;
  }
  return value;
}

// ---- Arguments: Ajv's view, and the values behind it ------------------------------------------------------

/** Each container of a view, to the arguments' own container it was made from. */
const originals = new WeakMap<object, object>();

/** The arguments as Ajv sees them: each JsonNumber only its type (0: an integer, 0.5: not). */
export function typeView(value: unknown): unknown {
  if (value instanceof JsonNumber) {
    const d = decimalOf(value.text);
    return d !== null && isIntegral(d) ? 0 : 0.5;
  }
  if (Array.isArray(value)) {
    const out = value.map(typeView);
    originals.set(out, value);
    return out;
  }
  if (isPlainObject(value)) {
    const out: SchemaObject = {};
    for (const [k, v] of Object.entries(value)) define(out, k, typeView(v));
    originals.set(out, value);
    return out;
  }
  return value;
}

interface DataContext {
  parentData?: unknown;
  parentDataProperty?: string | number;
}

/** The argument itself (JsonNumbers included) where Ajv holds `data`. */
function actual(data: unknown, cxt: DataContext | undefined): unknown {
  if (typeof data === "object" && data !== null) return originals.get(data) ?? data;
  const parent = cxt?.parentData;
  if (typeof parent !== "object" || parent === null) return data;
  const own = originals.get(parent);
  return own === undefined ? data : (own as Record<string | number, unknown>)[cxt!.parentDataProperty!];
}

function decimalOfValue(value: unknown): Decimal | null {
  return isJsonNumeric(value) ? decimalOf(literalOf(value)) : null;
}

type KeywordFn = ((schema: unknown, data: unknown, parent?: unknown, cxt?: DataContext) => boolean) & {
  errors?: Array<{ keyword: string; message: string; params: Record<string, unknown> }>;
};

function failing(fn: KeywordFn, keyword: string, message: string): false {
  fn.errors = [{ keyword, message, params: {} }];
  return false;
}

/** Declares toolgate's exact keywords on a compiler (ajvInstances.ts newCompiler). */
export function addExactKeywords(ajv: Ajv | Ajv2020): void {
  for (const [name, { holds, words }] of Object.entries(COMPARISONS)) {
    const fn: KeywordFn = (literal, data, _p, cxt) => {
      const value = decimalOfValue(actual(data, cxt));
      if (value === null) return true;
      return holds(compareDecimals(value, decimalOf(literal as string)!))
        ? true
        : failing(fn, PREFIX + name, `must be ${words} ${String(literal)}`);
    };
    ajv.addKeyword({
      keyword: PREFIX + (name as Comparison),
      schemaType: "string",
      validate: fn,
      errors: true,
    });
  }
  const multiple: KeywordFn = (literal, data, _p, cxt) => {
    const value = decimalOfValue(actual(data, cxt));
    if (value === null) return true;
    return isMultipleOf(value, decimalOf(literal as string)!)
      ? true
      : failing(multiple, `${PREFIX}multipleOf`, `must be multiple of ${String(literal)}`);
  };
  ajv.addKeyword({ keyword: `${PREFIX}multipleOf`, schemaType: "string", validate: multiple, errors: true });
  const constant: KeywordFn = (allowed, data, _p, cxt) =>
    exactlyEqual(actual(data, cxt), allowed)
      ? true
      : failing(constant, `${PREFIX}const`, `must be ${shorten(writeJson(allowed))}`);
  ajv.addKeyword({ keyword: `${PREFIX}const`, validate: constant, errors: true });
  const oneOf: KeywordFn = (allowed, data, _p, cxt) => {
    const value = actual(data, cxt);
    return (allowed as unknown[]).some((a) => exactlyEqual(value, a))
      ? true
      : failing(
          oneOf,
          `${PREFIX}enum`,
          `must be one of ${shorten((allowed as unknown[]).map((a) => writeJson(a)).join(", "))}`,
        );
  };
  ajv.addKeyword({ keyword: `${PREFIX}enum`, schemaType: "array", validate: oneOf, errors: true });
  const unique: KeywordFn = (_on, data, _p, cxt) => {
    const items = actual(data, cxt);
    if (!Array.isArray(items)) return true;
    for (let i = 0; i < items.length; i++)
      for (let j = i + 1; j < items.length; j++)
        if (exactlyEqual(items[i], items[j]))
          return failing(
            unique,
            `${PREFIX}uniqueItems`,
            `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
          );
    return true;
  };
  ajv.addKeyword({ keyword: `${PREFIX}uniqueItems`, schemaType: "boolean", validate: unique, errors: true });
  const format: KeywordFn = (name, data, _p, cxt) => {
    const value = decimalOfValue(actual(data, cxt));
    if (value === null) return true;
    const [low, high] = INTEGER_FORMATS[name as string]!;
    return isIntegral(value) &&
      compareDecimals(value, decimalOf(low)!) >= 0 &&
      compareDecimals(value, decimalOf(high)!) <= 0
      ? true
      : failing(format, `${PREFIX}format`, `must match format "${String(name)}"`);
  };
  ajv.addKeyword({ keyword: `${PREFIX}format`, schemaType: "string", validate: format, errors: true });
}

/** JSON equality with numbers compared as the decimals they are (`1`, `1.0`, `1e0` equal; 2^53 ≠ 2^53 + 1). */
export function exactlyEqual(a: unknown, b: unknown): boolean {
  if (isJsonNumeric(a) || isJsonNumeric(b)) {
    const x = decimalOfValue(a);
    const y = decimalOfValue(b);
    return x !== null && y !== null && compareDecimals(x, y) === 0;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((v, i) => exactlyEqual(v, b[i]))
    );
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && exactlyEqual(a[k], b[k]))
    );
  }
  return a === b;
}

function isPlainObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

function define(out: SchemaObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
