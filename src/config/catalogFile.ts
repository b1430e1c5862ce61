import { readFileSync } from "node:fs";
import type { ToolDefinition } from "../engine/model/gate.js";
import { parseStrictJson } from "../engine/json/strictJson.js";

/**
 * A saved catalog (`toolgate catalog save`, read by `policy test --catalog`): each server's tools as its
 * `tools/list` gave them, and each inputSchema's raw text (exact_schema_hash pins are checked against the
 * text, not a re-serialisation). A JSON object:
 *
 * ```json
 * { "toolgate_catalog": 1,
 *   "servers": { "fs": { "tools": [ {"name": "read_text_file", "inputSchema": {…}} ],
 *                        "input_schema_texts": { "read_text_file": "{…}" } } } }
 * ```
 */

/** One server's tools, and the raw text of each inputSchema (absent: the pin check has no text). */
export interface CatalogServer {
  tools: readonly (ToolDefinition & Record<string, unknown>)[];
  rawSchemas: ReadonlyMap<string, string>;
}

/** Server name → its catalog. */
export type PolicyCatalog = ReadonlyMap<string, CatalogServer>;

export const CATALOG_FORMAT = 1;

/** The file's JSON text for `catalog`, servers in the order given. */
export function catalogJson(catalog: PolicyCatalog): string {
  const servers: Record<string, unknown> = {};
  for (const [name, server] of catalog) {
    servers[name] = { tools: server.tools, input_schema_texts: Object.fromEntries(server.rawSchemas) };
  }
  return JSON.stringify({ toolgate_catalog: CATALOG_FORMAT, servers }, null, 2) + "\n";
}

export class CatalogFileError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

const HINT = "write it with `toolgate catalog save --output FILE`";

/** Parses a catalog file's text; throws CatalogFileError naming the file and the field. */
export function parseCatalogFile(file: string, text: string): PolicyCatalog {
  const parsed = parseStrictJson(text, { maxDepth: 256 });
  if (!parsed.ok) throw new CatalogFileError(`${file}: not acceptable JSON: ${parsed.message}`, HINT);
  const root = parsed.value;
  if (!isObject(root) || root["toolgate_catalog"] !== CATALOG_FORMAT || !isObject(root["servers"])) {
    throw new CatalogFileError(
      `${file}: not a toolgate catalog (expected an object with "toolgate_catalog": ${CATALOG_FORMAT} and "servers")`,
      HINT,
    );
  }
  const out = new Map<string, CatalogServer>();
  for (const [name, server] of Object.entries(root["servers"])) {
    const at = `${file}: servers.${name}`;
    if (!isObject(server) || !Array.isArray(server["tools"])) {
      throw new CatalogFileError(`${at}: expected an object with a "tools" list`, HINT);
    }
    const seen = new Set<string>();
    const tools = server["tools"].map((tool: unknown, i: number) => {
      if (!isObject(tool) || typeof tool["name"] !== "string") {
        throw new CatalogFileError(`${at}.tools[${i}]: a tool needs a string "name"`, HINT);
      }
      if (seen.has(tool["name"])) {
        throw new CatalogFileError(`${at}.tools[${i}]: tool '${tool["name"]}' is listed twice`, HINT);
      }
      seen.add(tool["name"]);
      return tool as ToolDefinition & Record<string, unknown>;
    });
    const texts = server["input_schema_texts"] ?? {};
    if (!isObject(texts) || Object.values(texts).some((t) => typeof t !== "string")) {
      throw new CatalogFileError(`${at}.input_schema_texts: expected an object of strings`, HINT);
    }
    out.set(name, { tools, rawSchemas: new Map(Object.entries(texts as Record<string, string>)) });
  }
  return out;
}

/** Reads and parses `file`; throws CatalogFileError when it cannot be read or is not a catalog. */
export function loadCatalogFile(file: string): PolicyCatalog {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CatalogFileError(
      `${file}: cannot read the catalog: ${error instanceof Error ? error.message : String(error)}`,
      HINT,
    );
  }
  return parseCatalogFile(file, text);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
