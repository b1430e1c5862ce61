import { asDoubles, exactSchema, holdsJsonNumber, typeView } from "./exactNumbers.js";
import type { ValidateFunction } from "ajv";
import type { Violation } from "../model/decision.js";
import { metaValidator, newCompiler } from "./ajvInstances.js";
import { draftOf } from "./draft.js";
import {
  CyclicSchemaError,
  findKeyword,
  findNonLocalReference,
  findKeywordPrefix,
  findPattern,
  type SchemaObject,
} from "./schemaWalk.js";

/** Keywords toolgate writes itself (exactNumbers.ts); a policy may not use them. */
const RESERVED_PREFIX = "x-toolgate-";
import { toViolations } from "./violations.js";

export type CompiledToolSchema =
  | { ok: true; tool: string; validate(args: unknown): Violation[] }
  | { ok: false; tool: string; error: string };

/**
 * Compiles every tool's argument schema now, once. A schema that fails only fails its own tool.
 *
 * - Draft 2020-12 unless the schema's `$schema` names draft-07; any other `$schema` fails.
 * - The shared `schemas.$defs` are merged into each schema's own `$defs`, so `#/$defs/name` resolves; a
 *   name defined in both places fails that tool.
 * - Only local references (`#…`) are allowed. Nothing is ever fetched: a reference to a URL or another
 *   file fails that tool's schema.
 * - Unknown keywords and unknown formats fail (strict mode): in a policy they are typos that would
 *   otherwise silently drop a constraint.
 * - `validate` reports every violation (not only the first), each with a JSON pointer into the arguments.
 *
 * A `$defs` entry of `schemas` is the shared block, never a tool: pass it as `sharedDefs`.
 */
export function compileToolSchemas(
  schemas: Record<string, unknown>,
  sharedDefs: Record<string, unknown>,
): Map<string, CompiledToolSchema> {
  const compiled = new Map<string, CompiledToolSchema>();
  for (const tool of Object.keys(schemas)) {
    if (tool === "$defs") continue;
    compiled.set(tool, compileOne(tool, schemas[tool], sharedDefs));
  }
  return compiled;
}

function compileOne(tool: string, schema: unknown, sharedDefs: Record<string, unknown>): CompiledToolSchema {
  const fail = (error: string): CompiledToolSchema => ({ ok: false, tool, error });
  if (
    typeof schema !== "boolean" &&
    (typeof schema !== "object" || schema === null || Array.isArray(schema))
  ) {
    return fail(`the schema must be an object (or true/false), not ${describeType(schema)}`);
  }
  const draft = draftOf(schema);
  if (!draft.ok) return fail(draft.error);

  const merged =
    typeof schema === "boolean" ? schema : mergeSharedDefs(tool, schema as SchemaObject, sharedDefs);
  if (typeof merged === "string") return fail(merged);
  const sharedNames = new Set(Object.keys(sharedDefs));

  try {
    const remote = findNonLocalReference(merged);
    if (remote !== null) {
      return fail(
        `${remote.keyword} ${JSON.stringify(remote.ref)} at ${where(remote.path, sharedNames)} is not a local ` +
          `reference: toolgate never fetches schemas; copy the definition into schemas.$defs and refer to it ` +
          `as "#/$defs/<name>"`,
      );
    }

    const reserved = findKeywordPrefix(merged, RESERVED_PREFIX);
    if (reserved !== null) {
      return fail(
        `keyword "${reserved.keyword}" at ${where(reserved.path, sharedNames)} is reserved: toolgate names its own exact number keywords so; write the standard keyword (maximum, enum, …)`,
      );
    }
    const meta = metaValidator(draft.draft);
    if (!meta.validateSchema(asDoubles(merged) as SchemaObject)) {
      const problems = toViolations(meta.errors ?? []).map(
        (v) => `${where(v.path, sharedNames)} ${v.message}`,
      );
      return fail(`not a valid JSON Schema (${draft.draft}): ${problems.slice(0, 5).join("; ")}`);
    }

    // Literals a double would change are compared exactly (exactNumbers.ts); arguments that hold such a
    // literal are checked against a schema whose every number comparison is exact, compiled on first need.
    let validateFn: ValidateFunction;
    let validateExact: ValidateFunction | null = null;
    try {
      validateFn = newCompiler(draft.draft).compile(exactSchema(merged, false) as SchemaObject);
    } catch (e) {
      return fail(explainCompileError(e, merged, sharedNames));
    }
    const exactly = (args: unknown): Violation[] => {
      try {
        validateExact ??= newCompiler(draft.draft).compile(exactSchema(merged, true) as SchemaObject);
      } catch (e) {
        return [
          { path: "", message: `could not be validated: ${e instanceof Error ? e.message : String(e)}` },
        ];
      }
      return runValidation(validateExact, typeView(args));
    };
    return {
      ok: true,
      tool,
      validate: (args: unknown) => (holdsJsonNumber(args) ? exactly(args) : runValidation(validateFn, args)),
    };
  } catch (e) {
    if (e instanceof CyclicSchemaError) return fail(e.message);
    if (e instanceof RangeError) return fail("the schema is nested too deeply to compile");
    return fail(`the schema could not be compiled: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The tool's schema with the shared definitions added to its `$defs`, or an error message. */
function mergeSharedDefs(
  tool: string,
  schema: SchemaObject,
  sharedDefs: Record<string, unknown>,
): SchemaObject | string {
  const sharedNames = Object.keys(sharedDefs);
  if (sharedNames.length === 0) return schema;
  const own = Object.hasOwn(schema, "$defs") ? schema.$defs : {};
  if (typeof own !== "object" || own === null || Array.isArray(own)) {
    return `$defs must be an object of named schemas, not ${describeType(own)}`;
  }
  const ownDefs = own as Record<string, unknown>;
  const clash = sharedNames.filter((name) => Object.hasOwn(ownDefs, name));
  if (clash.length > 0) {
    const list = clash.map((n) => JSON.stringify(n)).join(", ");
    const verb = clash.length === 1 ? "is" : "are";
    return (
      `$defs ${list} ${verb} defined both in schemas.$defs (shared) and in schemas.${tool}.$defs; ` +
      `rename one of the two so that "#/$defs/${clash[0]}" means one thing`
    );
  }
  // Spread and fromEntries define own data members, so a definition named __proto__ stays a definition.
  return { ...schema, $defs: { ...Object.fromEntries(Object.entries(sharedDefs)), ...ownDefs } };
}

function runValidation(validateFn: ValidateFunction, args: unknown): Violation[] {
  try {
    if (validateFn(args)) return [];
    return toViolations(validateFn.errors ?? []);
  } catch (e) {
    // Fail closed: a validator that cannot decide has not admitted the arguments.
    return [{ path: "", message: `could not be validated: ${e instanceof Error ? e.message : String(e)}` }];
  }
}

function explainCompileError(e: unknown, schema: unknown, sharedNames: Set<string>): string {
  const message = e instanceof Error ? e.message : String(e);
  const unknownKeyword = /^strict mode: unknown keyword: "(.*)"$/.exec(message);
  if (unknownKeyword !== null) {
    const keyword = unknownKeyword[1]!;
    const path = findKeyword(schema, keyword);
    const at = path === null ? "" : ` at ${where(path, sharedNames)}`;
    return (
      `unknown keyword "${keyword}"${at}: unknown keywords are rejected because a misspelt one would ` +
      `silently drop a constraint (check the spelling, or the draft: 2020-12 unless $schema says draft-07)`
    );
  }
  if (e instanceof Error && "missingRef" in e) {
    const ref = String((e as { missingRef: unknown }).missingRef);
    return `$ref "${ref}" does not resolve: no such definition in this schema or in schemas.$defs`;
  }
  const badRegExp = /^Invalid regular expression: \/(.*)\/u?: (.*)$/s.exec(message);
  if (badRegExp !== null) {
    const path = findPattern(schema, badRegExp[1]!);
    const at = path === null ? "" : ` at ${where(path, sharedNames)}`;
    return `pattern ${JSON.stringify(badRegExp[1])}${at} is not a valid regular expression: ${badRegExp[2]}`;
  }
  if (/^unknown format /.test(message)) {
    return `${message.replace(/ ignored in schema at path .*$/, "")}: unknown formats are rejected (a misspelt format would check nothing)`;
  }
  return message;
}

/** A pointer into the merged schema, saying when it is inside a shared definition. */
function where(path: string, sharedNames: Set<string>): string {
  const shared = /^\/\$defs\/([^/]*)/.exec(path);
  const name = shared?.[1]?.replace(/~1/g, "/").replace(/~0/g, "~");
  const suffix = name !== undefined && sharedNames.has(name) ? " (in schemas.$defs)" : "";
  return `${path === "" ? "the schema root" : path}${suffix}`;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
