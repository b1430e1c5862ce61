import { escapePointerToken } from "../json/pointer.js";

/** A JSON Schema object as found in a policy: any own keys. */
export type SchemaObject = Record<string, unknown>;

// Where JSON Schema (draft-07 and 2020-12) puts subschemas. Everything else (`const`, `enum`, `default`,
// `examples`, …) is data, so a `$ref` member inside it is not a reference.
export const SUBSCHEMA_MAPS = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
];
export const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
export const SUBSCHEMA_SINGLES = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];

export class CyclicSchemaError extends Error {
  constructor(readonly path: string) {
    super(`the schema contains itself at ${path || "/"}`);
  }
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Calls `visit` for the root and every subschema object in schema positions, with its JSON pointer, in
 * document order. A subschema shared by several parents (YAML aliases) is visited at each place; a schema
 * that contains itself throws CyclicSchemaError.
 */
export function forEachSubschema(root: unknown, visit: (schema: SchemaObject, path: string) => void): void {
  const open = new Set<object>();
  const walk = (schema: unknown, path: string): void => {
    if (!isSchemaObject(schema)) return;
    if (open.has(schema)) throw new CyclicSchemaError(path);
    open.add(schema);
    visit(schema, path);
    for (const keyword of Object.keys(schema)) {
      const value = schema[keyword];
      const at = `${path}/${escapePointerToken(keyword)}`;
      if (SUBSCHEMA_MAPS.includes(keyword) && isSchemaObject(value)) {
        for (const name of Object.keys(value)) walk(value[name], `${at}/${escapePointerToken(name)}`);
      } else if (SUBSCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
        value.forEach((item, i) => walk(item, `${at}/${i}`));
      } else if (SUBSCHEMA_SINGLES.includes(keyword)) {
        walk(value, at);
      }
    }
    open.delete(schema);
  };
  walk(root, "");
}

const REFERENCE_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"];

/** The first reference that is not a local `#…` pointer, with where it is; `null` when there is none. */
export function findNonLocalReference(root: unknown): { path: string; keyword: string; ref: string } | null {
  let found: { path: string; keyword: string; ref: string } | null = null;
  forEachSubschema(root, (schema, path) => {
    if (found !== null) return;
    for (const keyword of REFERENCE_KEYWORDS) {
      const ref = schema[keyword];
      if (typeof ref === "string" && !ref.startsWith("#")) {
        found = { path, keyword, ref };
        return;
      }
    }
  });
  return found;
}

/** Pointer of the first subschema that has `keyword` as an own member, or `null`. */
export function findKeyword(root: unknown, keyword: string): string | null {
  let found: string | null = null;
  forEachSubschema(root, (schema, path) => {
    if (found === null && Object.hasOwn(schema, keyword)) found = path;
  });
  return found;
}

/** The first keyword that starts with `prefix`, with the pointer of its subschema, or `null`. */
export function findKeywordPrefix(root: unknown, prefix: string): { path: string; keyword: string } | null {
  let found: { path: string; keyword: string } | null = null;
  forEachSubschema(root, (schema, path) => {
    if (found !== null) return;
    const keyword = Object.keys(schema).find((k) => k.startsWith(prefix));
    if (keyword !== undefined) found = { path, keyword };
  });
  return found;
}

/** Pointer of the first `pattern` or `patternProperties` name equal to `source`, or `null`. */
export function findPattern(root: unknown, source: string): string | null {
  let found: string | null = null;
  forEachSubschema(root, (schema, path) => {
    if (found !== null) return;
    if (schema.pattern === source) found = `${path}/pattern`;
    const named = schema.patternProperties;
    if (isSchemaObject(named) && Object.hasOwn(named, source)) {
      found = `${path}/patternProperties/${escapePointerToken(source)}`;
    }
  });
  return found;
}
