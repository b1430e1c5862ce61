import { isPathName } from "../../engine/controls/argumentNames.js";
import { isJsonObject, type JsonObject } from "../../engine/rpc/jsonRpc.js";

/**
 * A starter policy's schema for one tool: the server's own inputSchema, closed, never narrower than what the
 * server accepts.
 *
 * - Closed: `additionalProperties: false` on every object whose `properties` say all it takes (unless the
 *   server says otherwise), and an explicit `required`. An object built with `allOf`/`anyOf`/`oneOf`,
 *   `$ref`, `if` or `dependentSchemas` is left open: its properties are declared elsewhere, and closing it
 *   would refuse arguments the server takes.
 * - Never narrower: no `maxLength`, `minLength` or `maxItems` is added. A length is not what makes a call
 *   safe, and a bound the server does not have refuses its real work (a 5 KB file, an empty file, an edit
 *   whose new text is empty). Paths are kept inside the server's roots by `restrict_scope`, not by a length.
 *   Each string or list the server leaves unbounded says so in a `$comment` starting `unbounded:`, which
 *   `policy validate` reads as a bound left out on purpose (no `W_SCHEMA_BOUNDS`).
 *
 * Every other keyword is kept as the server wrote it. Pure.
 */

/** How the tool's path arguments are kept in bounds, for their `$comment`. */
export type PathBound = "scoped" | "optional" | "no-roots";

const OPENED_BY = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "unevaluatedProperties"];

const PATH_COMMENT: Record<PathBound, string> = {
  scoped: "unbounded: a path; restrict_scope keeps it inside the server's roots, not a length",
  optional:
    "unbounded: a path; optional, so this tool is not under restrict_scope (a scope refuses a call without a path); the server checks its roots",
  "no-roots":
    "unbounded: a path; the server's command named no directory to scope it to; the server checks its own roots",
};
const TEXT_COMMENT = "unbounded: any length the server accepts, the empty string included";
const LIST_COMMENT = "unbounded: as many items as the server accepts";

export function starterSchema(schema: unknown, paths: PathBound): unknown {
  return closed(schema, paths, false);
}

function closed(schema: unknown, paths: PathBound, pathLike: boolean): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = { ...schema };
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (types.has("object") || isJsonObject(schema.properties)) {
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, closed(value, paths, isPathName(key))]),
    );
    out.required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
    const open = OPENED_BY.some((keyword) => Object.hasOwn(schema, keyword));
    if (out.additionalProperties === undefined && !open) out.additionalProperties = false;
  }
  const enumerated = schema.enum !== undefined || schema.const !== undefined;
  if (types.has("string") && !enumerated && schema.maxLength === undefined) {
    withComment(out, pathLike ? PATH_COMMENT[paths] : TEXT_COMMENT);
  }
  if (types.has("array")) {
    if (!enumerated && schema.maxItems === undefined) withComment(out, LIST_COMMENT);
    // The items of a path-like list (`paths`) are paths.
    if (schema.items !== undefined) out.items = closed(schema.items, paths, pathLike);
  }
  return out;
}

/** Our `$comment` first; a comment of the server's own is kept after it. */
function withComment(out: JsonObject, text: string): void {
  const own =
    typeof out.$comment === "string" && out.$comment !== "" ? `; the server's comment: ${out.$comment}` : "";
  out.$comment = `${text}${own}`;
}

/**
 * The tool's required top-level arguments whose names are path-like (`path`, `source`, `paths`), the
 * arguments `restrict_scope` checks: a tool is scoped only when every call names one, because a scope
 * refuses a call in which it finds no path.
 */
export function requiredPathArguments(schema: unknown): string[] {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties) || !Array.isArray(schema.required)) return [];
  const properties = schema.properties;
  return schema.required.filter(
    (name): name is string => typeof name === "string" && Object.hasOwn(properties, name) && isPathName(name),
  );
}

/** Whether any argument, at any depth, has a path-like name (for the comment of an unscoped tool). */
export function hasPathArguments(schema: unknown, depth = 0): boolean {
  if (!isJsonObject(schema) || depth > 32) return false;
  if (isJsonObject(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) {
      if (isPathName(key) || hasPathArguments(value, depth + 1)) return true;
    }
  }
  return hasPathArguments(schema.items, depth + 1);
}
