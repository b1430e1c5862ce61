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

/**
 * Streamable HTTP in the modern era mirrors parts of the body in headers so intermediaries can route on
 * them: `MCP-Protocol-Version` (the envelope's version), `Mcp-Method`, and `Mcp-Name` (the tool or prompt
 * name, the resource URI). The body decides; headers that disagree with it, or are missing, are refused
 * with HeaderMismatch (-32020) before anything is decided or forwarded, so a proxy routing on a header
 * and toolgate deciding on the body can never see two different requests. Pure.
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
  return null;
}

/**
 * `Mcp-Param-{Name}` headers of a `tools/call`: every argument the tool's inputSchema marks with
 * `x-mcp-header: Name` (a property reachable through `properties` alone, of type string, integer or
 * boolean) is mirrored when present, and must agree with the argument. Pure.
 */
export function paramHeaderMismatch(
  headers: HeaderBag,
  inputSchema: unknown,
  args: unknown,
): JsonRpcErrorObject | null {
  for (const { header, path } of mirroredParams(inputSchema)) {
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const body =
      typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : undefined;
    const name = `mcp-param-${header.toLowerCase()}`;
    const given = headers[name];
    const problem = typeof value === "number" ? numericDisagreement(given, value) : disagreement(given, body);
    if (problem !== null) return mismatch(`Mcp-Param-${header}`, problem, given, body);
  }
  return null;
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

/** A header value as the client meant it: one value, the `=?base64?…?=` form decoded. */
function decoded(value: string | string[] | undefined): string | undefined | null {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return null;
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (m === null) return value;
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  return Buffer.from(text, "utf8").toString("base64") === m[1] ? text : null;
}

function disagreement(header: string | string[] | undefined, body: string | undefined): string | null {
  const value = decoded(header);
  if (value === null) return "it is given more than once or is not valid base64";
  if (body === undefined) return value === undefined ? null : "the body has no such value";
  if (value === undefined) return "it is absent";
  return value === body ? null : "it differs from the body";
}

function numericDisagreement(header: string | string[] | undefined, body: number): string | null {
  const value = decoded(header);
  if (value === null) return "it is given more than once or is not valid base64";
  if (value === undefined) return "it is absent";
  return /^-?\d+$/.test(value) && Number(value) === body ? null : "it differs from the body";
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
