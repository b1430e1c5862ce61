import { compareDecimals, decimalOf } from "../json/decimal.js";
import { isJsonNumeric, literalOf, type JsonNumber } from "../json/jsonNumber.js";
import { isJsonObject, type JsonObject, type JsonRpcErrorObject } from "../rpc/jsonRpc.js";
import { HEADER_MISMATCH } from "./eras.js";

/** Header values as node:http gives them (lower-case names). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** The methods whose `Mcp-Name` header mirrors a member of the params. */
const NAMED: Record<string, "name" | "uri"> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

const PARAM_PREFIX = "mcp-param-";
const REPEATED = "it is given on more than one line; send it once";
const ABSENT_ARGUMENT =
  "the body has no value for it (the argument is absent or null), so the header must not be sent";

/**
 * Streamable HTTP in the modern era mirrors parts of the body in headers so intermediaries can route on
 * them: `MCP-Protocol-Version` (the envelope's version), `Mcp-Method`, and `Mcp-Name` (the tool or prompt
 * name, the resource URI). The body decides; headers that disagree with it, are missing, are given on more
 * than one line (a proxy may read the first line and toolgate the last), or carry characters a plain
 * header value may not, are refused with HeaderMismatch (-32020) before anything is decided or forwarded,
 * so a proxy routing on a header and toolgate deciding on the body can never see two different requests.
 * `headers`: as {@link withRepeatedLines} gives them, so repeats show. Pure.
 */
export function standardHeaderMismatch(
  headers: HeaderBag,
  method: string,
  params: JsonObject,
  version: string,
): JsonRpcErrorObject | null {
  const checks: Array<[string, string | undefined]> = [
    ["mcp-protocol-version", version],
    ["mcp-method", method],
  ];
  const member = NAMED[method];
  if (member !== undefined)
    checks.push(["mcp-name", typeof params[member] === "string" ? (params[member] as string) : undefined]);
  for (const [name, body] of checks) {
    const problem = disagreement(headers[name], body);
    if (problem !== null) return mismatch(displayName(name), problem, headers[name], body);
  }
  // Every Mcp-Param-* line, declared by the tool or not: which one counts is decided later, from the
  // tool's definition, and a repeat must not reach a proxy that picks one line.
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(PARAM_PREFIX) && Array.isArray(value))
      return mismatch(paramDisplayName(name), REPEATED, value, undefined);
  }
  return null;
}

/**
 * `Mcp-Param-{Name}` headers of a `tools/call`: every argument the tool's inputSchema marks with
 * `x-mcp-header: Name` (a property reachable through `properties` alone, of type string, integer or
 * boolean) is mirrored when present, and must agree with the argument. An argument that is absent or
 * `null` has no header: one sent anyway says something the body does not, and is refused too. Pure.
 */
export function paramHeaderMismatch(
  headers: HeaderBag,
  inputSchema: unknown,
  args: unknown,
): JsonRpcErrorObject | null {
  for (const { header, path } of mirroredParams(inputSchema)) {
    const value = valueAt(args, path);
    const name = `${PARAM_PREFIX}${header.toLowerCase()}`;
    const shown = `Mcp-Param-${header}`;
    const given = headers[name];
    if (value === undefined || value === null) {
      if (given !== undefined) return mismatch(shown, ABSENT_ARGUMENT, given, undefined);
      continue;
    }
    const body =
      typeof value === "string" || isJsonNumeric(value) || typeof value === "boolean"
        ? String(value)
        : undefined;
    const problem = isJsonNumeric(value) ? numericDisagreement(given, value) : disagreement(given, body);
    if (problem !== null) return mismatch(shown, problem, given, body);
  }
  return null;
}

/**
 * node:http joins the lines of a repeated custom header into one `a, b` value, which reads like one value
 * that contains a comma. `headers` with every mirrored header (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*`) that came on more than one line given as the list of its lines
 * (`distinct`: node's `req.headersDistinct`), so the checks above see the repeat. Pure.
 */
export function withRepeatedLines<H extends HeaderBag>(
  headers: H,
  distinct: Record<string, string[] | undefined>,
): H {
  const out: HeaderBag = { ...headers };
  for (const [name, lines] of Object.entries(distinct)) {
    if (lines !== undefined && lines.length > 1 && isMirroredHeader(name)) out[name] = lines;
  }
  return out as H;
}

/** Whether a (lower-case) header name mirrors part of a modern request's body. */
export function isMirroredHeader(name: string): boolean {
  return (
    name === "mcp-protocol-version" ||
    name === "mcp-method" ||
    name === "mcp-name" ||
    name.startsWith(PARAM_PREFIX)
  );
}

/** The `x-mcp-header` declarations of a schema: header name and the argument's path. */
export function mirroredParams(
  schema: unknown,
  path: string[] = [],
): Array<{ header: string; path: string[] }> {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return [];
  const out: Array<{ header: string; path: string[] }> = [];
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isJsonObject(property)) continue;
    if (typeof property["x-mcp-header"] === "string")
      out.push({ header: property["x-mcp-header"], path: [...path, key] });
    out.push(...mirroredParams(property, [...path, key]));
  }
  return out;
}

function valueAt(value: unknown, path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (!isJsonObject(at)) return undefined;
    at = at[key];
  }
  return at;
}

/**
 * A header value as the client meant it: one line, the `=?base64?…?=` form decoded; a plain value holds
 * only visible ASCII, spaces and tabs (MCP: anything else travels base64-encoded).
 */
function decoded(value: string | string[] | undefined): { value: string | undefined } | { problem: string } {
  if (value === undefined) return { value: undefined };
  if (Array.isArray(value)) return { problem: REPEATED };
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (m === null) {
    return /^[\t\x20-\x7e]*$/.test(value)
      ? { value }
      : { problem: "it holds characters a plain header value may not (use the =?base64?…?= form)" };
  }
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  return Buffer.from(text, "utf8").toString("base64") === m[1]
    ? { value: text }
    : { problem: "it is not valid base64" };
}

function disagreement(header: string | string[] | undefined, body: string | undefined): string | null {
  const reading = decoded(header);
  if ("problem" in reading) return reading.problem;
  const value = reading.value;
  if (body === undefined) return value === undefined ? null : "the body has no such value";
  if (value === undefined) return "it is absent";
  return value === body ? null : "it differs from the body";
}

function numericDisagreement(
  header: string | string[] | undefined,
  body: number | JsonNumber,
): string | null {
  const reading = decoded(header);
  if ("problem" in reading) return reading.problem;
  const value = reading.value;
  if (value === undefined) return "it is absent";
  // Compared as numbers, exactly (MCP: `42.0` is `42`; 9007199254740993 is not 9007199254740992).
  const header_ = /^-?\d+(?:\.\d+)?$/.test(value) ? decimalOf(value) : null;
  const own = decimalOf(literalOf(body));
  return header_ !== null && own !== null && compareDecimals(header_, own) === 0
    ? null
    : "it differs from the body";
}

/** `Mcp-Param-Region` for `mcp-param-region` (header names are case-insensitive; this is for people). */
function paramDisplayName(lower: string): string {
  const rest = lower.slice(PARAM_PREFIX.length);
  return `Mcp-Param-${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
}

function displayName(lower: string): string {
  return lower === "mcp-protocol-version"
    ? "MCP-Protocol-Version"
    : lower === "mcp-method"
      ? "Mcp-Method"
      : "Mcp-Name";
}

function mismatch(
  name: string,
  problem: string,
  header: string | string[] | undefined,
  body: string | undefined,
): JsonRpcErrorObject {
  return {
    code: HEADER_MISMATCH,
    message: `Header mismatch: the ${name} header disagrees with the request body (${problem}); the body decides, so the request was refused`,
    data: { mismatch: { header: name, headerValue: header ?? null, body: body ?? null } },
  };
}
