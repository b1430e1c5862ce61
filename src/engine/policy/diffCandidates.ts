/**
 * Argument objects to try on two policies (`toolgate policy diff`): values read from what the schemas say
 * of each argument (const, enum, default, examples, bounds of length and size, types) and from the scope
 * contracts (a path inside, a path outside). Nothing here decides: policyDiff.ts puts every candidate
 * through both gates' decideCall and keeps the first one they answer differently. The search is plain and
 * bounded; when it finds nothing the diff says so rather than guessing.
 */

type Schema = Record<string, unknown>;

/** The schemas that speak of a tool's arguments: the server's inputSchema and each policy's own schema. */
export interface CandidateSources {
  schemas: readonly unknown[];
  /** Shared `$defs` a policy schema may refer to (`#/$defs/name`). */
  sharedDefs: readonly Record<string, unknown>[];
  /** Scope values of the policies' restrict_scope contracts (paths or resource names). */
  scopeValues: readonly string[];
}

/** Candidate values per argument name, in the order worth trying (values a schema names first). */
export type ArgumentCandidates = Map<string, unknown[]>;

const MAX_VALUES_PER_ARGUMENT = 40;
const LONGEST_GENERATED = 100_000;
/** An argument name no schema is expected to name: a closed schema (`additionalProperties: false`) refuses it. */
export const UNEXPECTED_ARGUMENT = "toolgate_diff_unexpected";

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Follows a local `#/$defs/x` or `#/definitions/x` reference (one step at a time, bounded by the caller). */
function deref(schema: Schema, roots: readonly Schema[], shared: readonly Record<string, unknown>[]): Schema {
  let current = schema;
  for (let hops = 0; hops < 8 && typeof current.$ref === "string"; hops++) {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(current.$ref);
    if (match === null) return current;
    const name = decodeURIComponent(match[2]!).replace(/~1/g, "/").replace(/~0/g, "~");
    const found = [
      ...roots.map((r) => (r[match[1]!] as Record<string, unknown> | undefined)?.[name]),
      ...shared.map((d) => d[name]),
    ].find(isSchema);
    if (found === undefined) return current;
    current = found;
  }
  return current;
}

/** The schema and the parts of it that hold for the same object (allOf, anyOf, oneOf, then, else). */
function branches(
  schema: Schema,
  roots: readonly Schema[],
  shared: readonly Record<string, unknown>[],
): Schema[] {
  const out: Schema[] = [];
  const visit = (s: Schema, depth: number): void => {
    const resolved = deref(s, roots, shared);
    out.push(resolved);
    if (depth >= 3) return;
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const list = resolved[key];
      if (Array.isArray(list)) for (const sub of list) if (isSchema(sub)) visit(sub, depth + 1);
    }
    for (const key of ["then", "else"])
      if (isSchema(resolved[key])) visit(resolved[key] as Schema, depth + 1);
  };
  visit(schema, 0);
  return out;
}

/** The argument names every schema requires, and each argument's subschemas, over every source. */
export function argumentSchemas(sources: CandidateSources): {
  required: string[];
  properties: Map<string, Schema[]>;
} {
  const required = new Set<string>();
  const properties = new Map<string, Schema[]>();
  for (const root of sources.schemas) {
    if (!isSchema(root)) continue;
    for (const part of branches(root, [root], sources.sharedDefs)) {
      if (Array.isArray(part.required))
        for (const r of part.required) if (typeof r === "string") required.add(r);
      if (!isSchema(part.properties)) continue;
      for (const [name, sub] of Object.entries(part.properties)) {
        if (!isSchema(sub)) continue;
        const list = properties.get(name) ?? [];
        list.push(...branches(sub, [root], sources.sharedDefs));
        properties.set(name, list);
      }
    }
  }
  for (const r of required) if (!properties.has(r)) properties.set(r, []);
  return { required: [...required], properties };
}

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return [];
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function stringValues(schema: Schema, scopeValues: readonly string[]): unknown[] {
  const out: unknown[] = [];
  for (const v of scopeValues) {
    const base = v.endsWith("/") ? v.slice(0, -1) : v;
    out.push(`${base}/example.txt`, v);
  }
  out.push("/outside-the-scope/example.txt", "example");
  const max = num(schema.maxLength);
  const min = num(schema.minLength);
  if (max !== undefined && max < LONGEST_GENERATED) out.push("x".repeat(max), "x".repeat(max + 1));
  if (min !== undefined && min > 0 && min < LONGEST_GENERATED) out.push("x".repeat(min), "x".repeat(min - 1));
  if (schema.format === "date-time") out.push("2026-01-31T12:00:00Z");
  if (schema.format === "uri") out.push("https://example.com/");
  if (schema.format === "email") out.push("someone@example.com");
  out.push("", "/", "../example.txt");
  return out;
}

function numberValues(schema: Schema, integer: boolean): unknown[] {
  const out: unknown[] = [];
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const v = num(schema[key]);
    if (v !== undefined) out.push(v, v - 1, v + 1);
  }
  out.push(1, 0, -1, 1000000);
  if (!integer) out.push(0.5);
  return out;
}

function arrayValues(schema: Schema, item: unknown): unknown[] {
  const out: unknown[] = [[item], []];
  const max = num(schema.maxItems);
  if (max !== undefined && max < 1000) out.push(Array.from({ length: max + 1 }, () => item));
  return out;
}

/** Values for one argument from each of its subschemas; the values a schema names come first. */
function valuesFor(schemas: readonly Schema[], scopeValues: readonly string[], depth: number): unknown[] {
  const named: unknown[] = [];
  const generated: unknown[] = [];
  for (const s of schemas) {
    if (Object.hasOwn(s, "const")) named.push(s.const);
    if (Array.isArray(s.enum)) named.push(...s.enum);
    if (Object.hasOwn(s, "default")) named.push(s.default);
    if (Array.isArray(s.examples)) named.push(...s.examples);
    const types = typesOf(s);
    for (const type of types.length === 0 ? ["string"] : types) {
      if (type === "string") generated.push(...stringValues(s, scopeValues));
      else if (type === "integer" || type === "number")
        generated.push(...numberValues(s, type === "integer"));
      else if (type === "boolean") generated.push(true, false);
      else if (type === "null") generated.push(null);
      else if (type === "array") {
        const items = isSchema(s.items) ? [s.items] : [];
        const first = depth < 2 ? valuesFor(items, scopeValues, depth + 1)[0] : "example";
        generated.push(...arrayValues(s, first ?? "example"));
      } else if (type === "object") generated.push({});
    }
  }
  // A value of another type: a schema that names the type refuses it, one that does not admits it.
  generated.push(42, "text", true, null);
  return unique([...named, ...generated]).slice(0, MAX_VALUES_PER_ARGUMENT);
}

function unique(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = JSON.stringify(v) ?? "undefined";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Candidate values for every argument any source names (required ones first). */
export function argumentCandidates(sources: CandidateSources): {
  required: string[];
  candidates: ArgumentCandidates;
} {
  const { required, properties } = argumentSchemas(sources);
  const names = [...required, ...[...properties.keys()].filter((n) => !required.includes(n)).sort()];
  const candidates: ArgumentCandidates = new Map();
  for (const name of names)
    candidates.set(name, valuesFor(properties.get(name) ?? [], sources.scopeValues, 0));
  return { required, candidates };
}
