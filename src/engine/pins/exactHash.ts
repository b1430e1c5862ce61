import { ToolgateError } from "../errors.js";
import { ExactInteger, hasExactInteger, parseJsonExact } from "../json/exactNumbers.js";
import type { ToolDefinition } from "../model/gate.js";
import { canonicalJson } from "./canonicalJson.js";
import { metaHash, schemaHash, sha256Hex } from "./hashes.js";

/**
 * The spec's 2^53 blind spot, closed. `schema_hash` is taken over RFC 8785 bytes, where every number is a
 * double, so `{"maximum": 9007199254740993}` and `{"maximum": 9007199254740992}` share a pin although a
 * validator that reads integers exactly admits different arguments under them.
 *
 * `exact_schema_hash` (a toolgate extension of `tool_pins`) is the hex SHA-256 of the same canonical form
 * with one change: an integer literal (digits only: no fraction, no exponent) outside ±(2^53 − 1) is
 * written with its exact decimal digits instead of its double. Everything else is as in `schema_hash`, so
 * key order and `100` vs `1e2` still do not matter, and for a schema without such literals the two hashes
 * are equal. A literal with a fraction or exponent is read as a double by validators too, so it stays one.
 * So does an integer past the 64-bit range (below −2^63 or above 2^64 − 1): there no validator tells two
 * such literals apart, so they are one value (the spec's words), not an edit a pin should report.
 *
 * It has to be computed from the JSON text the server sent (the parsed doubles have already lost the
 * digits): extractToolSchemaTexts cuts each tool's inputSchema text out of a raw tools/list response.
 */

/** `null` for a tool without an inputSchema, as schema_hash does. */
export function exactSchemaHash(rawSchemaJsonText: string | undefined): string {
  if (rawSchemaJsonText === undefined) return sha256Hex("null");
  return sha256Hex(exactCanonicalJson(parseExact(rawSchemaJsonText, "the schema text")));
}

/** True when the text holds an integer literal outside ±(2^53 − 1): a pin then needs exact_schema_hash. */
export function schemaNeedsExactHash(rawSchemaJsonText: string): boolean {
  return hasExactInteger(parseExact(rawSchemaJsonText, "the schema text"));
}

/**
 * RFC 8785 canonical JSON of a value from parseJsonExact: as canonicalJson, but an ExactInteger is written
 * as its digits. Throws ToolgateError `E_CANONICALIZE` for what JSON cannot express.
 */
export function exactCanonicalJson(value: unknown): string {
  if (!hasExactInteger(value)) return canonicalJson(value);
  const out: string[] = [];
  write(value, out);
  return out.join("");
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function write(value: unknown, out: string[]): void {
  if (value instanceof ExactInteger) {
    const n = BigInt(value.digits);
    out.push(n >= INT64_MIN && n <= UINT64_MAX ? value.digits : canonicalJson(Number(value.digits)));
  } else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((el, i) => {
      if (i > 0) out.push(",");
      write(el, out);
    });
    out.push("]");
  } else if (typeof value === "object" && value !== null) {
    // Default sort order compares UTF-16 code units, which is RFC 8785's member order.
    const keys = Object.keys(value).sort();
    out.push("{");
    keys.forEach((k, i) => {
      if (i > 0) out.push(",");
      out.push(canonicalJson(k), ":");
      write((value as Record<string, unknown>)[k], out);
    });
    out.push("}");
  } else {
    out.push(canonicalJson(value));
  }
}

/**
 * Each tool's inputSchema as raw JSON text, cut from a raw tools/list response: a whole JSON-RPC response
 * (`{"jsonrpc":"2.0","id":…,"result":{"tools":[…]}}`) or its result (`{"tools":[…]}`). Tools without a
 * name or an inputSchema are left out. Throws ToolgateError `E_TOOLS_LIST` when the text is not strict
 * JSON, has no tools list, or names a tool twice.
 */
export function extractToolSchemaTexts(rawToolsListText: string): Map<string, string> {
  const parsed = parseJsonExact(rawToolsListText);
  if (!parsed.ok)
    throw new ToolgateError("E_TOOLS_LIST", `the tools/list text is not strict JSON: ${parsed.message}`);
  const root = parsed.value;
  const result = isObject(root) && isObject(root.result) ? root.result : root;
  const tools = isObject(result) ? result.tools : undefined;
  if (!Array.isArray(tools))
    throw new ToolgateError("E_TOOLS_LIST", "the tools/list text has no tools array");
  const out = new Map<string, string>();
  for (const tool of tools) {
    if (!isObject(tool) || typeof tool.name !== "string" || !Object.hasOwn(tool, "inputSchema")) continue;
    if (out.has(tool.name)) {
      throw new ToolgateError("E_TOOLS_LIST", `the tools/list text names tool '${tool.name}' twice`);
    }
    const schema = tool.inputSchema;
    const span = typeof schema === "object" && schema !== null ? parsed.spanOf(schema) : undefined;
    out.set(tool.name, span ? rawToolsListText.slice(span[0], span[1]) : exactCanonicalJson(schema));
  }
  return out;
}

/** A `tool_pins` entry in the policy file's own field names, for `toolgate pin`. */
export interface ToolPinEntry {
  server_id?: string;
  tool_name: string;
  schema_hash: string;
  meta_hash: string;
  exact_schema_hash?: string;
}

/**
 * The pin for a tool as the server lists it. `exact_schema_hash` is added only when the schema needs it,
 * which can only be told from the raw text: without `rawSchemaText`, a schema holding an integer beyond
 * ±(2^53 − 1) is refused (`E_PIN_EXACT_TEXT`) rather than pinned blind. With it, the text must be the
 * same schema as `tool.inputSchema` (`E_PIN_INPUT` otherwise). Throws `E_CANONICALIZE` / `E_PIN_INPUT`
 * for a tool that cannot be hashed.
 */
export function pinForTool(tool: ToolDefinition, rawSchemaText?: string, serverId?: string): ToolPinEntry {
  const entry: ToolPinEntry = {
    ...(serverId !== undefined ? { server_id: serverId } : {}),
    tool_name: tool.name,
    schema_hash: schemaHash(tool.inputSchema),
    meta_hash: metaHash(tool.description),
  };
  if (rawSchemaText === undefined) {
    if (holdsUnsafeInteger(tool.inputSchema)) {
      throw new ToolgateError(
        "E_PIN_EXACT_TEXT",
        `the inputSchema of '${tool.name}' holds an integer beyond 2^53; its pin needs the schema's raw JSON text to record exact_schema_hash`,
      );
    }
    return entry;
  }
  const exact = parseExact(rawSchemaText, `the raw schema text of '${tool.name}'`);
  if (schemaHash(doubles(exact)) !== entry.schema_hash) {
    throw new ToolgateError(
      "E_PIN_INPUT",
      `the raw schema text of '${tool.name}' is not the inputSchema the tool lists`,
    );
  }
  if (hasExactInteger(exact)) entry.exact_schema_hash = sha256Hex(exactCanonicalJson(exact));
  return entry;
}

function parseExact(text: string, what: string): unknown {
  const parsed = parseJsonExact(text);
  if (!parsed.ok) throw new ToolgateError("E_CANONICALIZE", `${what} is not strict JSON: ${parsed.message}`);
  return parsed.value;
}

/** The value with each ExactInteger turned back into the double JSON.parse would give. */
function doubles(value: unknown): unknown {
  if (value instanceof ExactInteger) return Number(value.digits);
  if (Array.isArray(value)) return value.map(doubles);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const v = doubles(value[k]);
      if (k === "__proto__")
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
    }
    return out;
  }
  return value;
}

function holdsUnsafeInteger(value: unknown): boolean {
  if (typeof value === "number") return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (Array.isArray(value)) return value.some(holdsUnsafeInteger);
  if (isObject(value)) return Object.values(value).some(holdsUnsafeInteger);
  return false;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
