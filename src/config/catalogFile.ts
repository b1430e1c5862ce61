import { readFileSync } from "node:fs";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { ToolDefinition } from "../engine/model/gate.js";
import type { SourceNode, SourceRef } from "../engine/model/source.js";
import type { DiffServer } from "../engine/policy/diffModel.js";
import { parseJsoncSource } from "./jsoncSource.js";
import { toPlain } from "./sourceTree.js";

/**
 * The catalog file of `toolgate catalog save`, read by `policy test --catalog` and `policy diff --catalog`:
 * `{"toolgate_catalog": 1, "servers": {"<name>": {"tools": [...], "input_schema_texts": {...}}}}`, each
 * server's tools as its `tools/list` gave them (every field kept), and each inputSchema's raw text
 * (exact_schema_hash pins are checked against the text, not a re-serialisation).
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

/** The servers of a catalog file as the policy tests take them. */
export function asPolicyCatalog(servers: readonly DiffServer[]): PolicyCatalog {
  return new Map(
    servers.map((s) => [
      s.name,
      {
        tools: s.tools as CatalogServer["tools"],
        rawSchemas: s.rawSchemas ?? new Map<string, string>(),
      },
    ]),
  );
}

/**
 * A saved catalog (`--catalog FILE`): JSON `{"servers": {"<name>": {"tools": [<tool>…]}}}`, each tool as
 * `tools/list` gives it (`name`, `inputSchema`, `description`, `annotations`). Other keys are ignored, so a
 * file that also records when or from where it was saved reads the same. Every problem is an E_CATALOG_FILE
 * error at its file:line:column, and none is skipped: a catalog with a bad tool is refused whole, since a
 * diff over part of it would report less than what changes.
 */
export function loadCatalogFile(file: string): { servers: DiffServer[] | null; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const message = `cannot read the catalog file: ${error instanceof Error ? error.message : String(error)}`;
    return { servers: null, diagnostics: [problem({ file, path: "", line: 0, column: 0 }, message)] };
  }
  return readCatalogText(file, text);
}

export function readCatalogText(
  file: string,
  text: string,
): { servers: DiffServer[] | null; diagnostics: Diagnostic[] } {
  const parsed = parseJsoncSource(file, text);
  if (parsed.root === null) return { servers: null, diagnostics: parsed.diagnostics };
  const diagnostics: Diagnostic[] = [];
  const servers: DiffServer[] = [];
  const root = parsed.root;
  const serversNode = root.kind === "map" ? root.entries.find((e) => e.key === "servers")?.value : undefined;
  const format =
    root.kind === "map" ? root.entries.find((e) => e.key === "toolgate_catalog")?.value : undefined;
  if (format !== undefined && toPlain(format) !== CATALOG_FORMAT) {
    diagnostics.push(
      problem(
        format.at,
        `toolgate_catalog ${JSON.stringify(toPlain(format))} is not a format this toolgate reads (${CATALOG_FORMAT})`,
      ),
    );
    return { servers: null, diagnostics };
  }
  if (serversNode?.kind !== "map") {
    const at = serversNode?.at ?? root.at;
    diagnostics.push(problem(at, 'expected an object with "servers": {"<name>": {"tools": [...]}}'));
    return { servers: null, diagnostics };
  }
  for (const entry of serversNode.entries) {
    const toolsNode =
      entry.value.kind === "map" ? entry.value.entries.find((e) => e.key === "tools")?.value : undefined;
    if (toolsNode?.kind !== "seq") {
      diagnostics.push(
        problem(
          toolsNode?.at ?? entry.value.at,
          `server '${entry.key}' needs "tools": [ ... ] (its tools/list answer's tools)`,
        ),
      );
      continue;
    }
    const tools: Array<ToolDefinition & Record<string, unknown>> = [];
    const names = new Set<string>();
    for (const item of toolsNode.items) {
      const tool = readTool(item, diagnostics);
      if (tool === null) continue;
      if (names.has(tool.name)) {
        diagnostics.push(problem(item.at, `server '${entry.key}' lists tool '${tool.name}' twice`));
        continue;
      }
      names.add(tool.name);
      tools.push(tool);
    }
    const texts =
      entry.value.kind === "map"
        ? entry.value.entries.find((e) => e.key === "input_schema_texts")?.value
        : undefined;
    const rawSchemas = new Map<string, string>();
    if (texts !== undefined) {
      const plain = texts.kind === "map" ? (toPlain(texts) as Record<string, unknown>) : null;
      if (plain === null || Object.values(plain).some((t) => typeof t !== "string")) {
        diagnostics.push(
          problem(texts.at, `server '${entry.key}': input_schema_texts must map tool names to strings`),
        );
      } else for (const [name, text] of Object.entries(plain)) rawSchemas.set(name, text as string);
    }
    servers.push(texts === undefined ? { name: entry.key, tools } : { name: entry.key, tools, rawSchemas });
  }
  if (serversNode.entries.length === 0)
    diagnostics.push(problem(serversNode.at, "the catalog names no server"));
  return { servers: diagnostics.length > 0 ? null : servers, diagnostics };
}

function readTool(
  node: SourceNode,
  diagnostics: Diagnostic[],
): (ToolDefinition & Record<string, unknown>) | null {
  if (node.kind !== "map") {
    diagnostics.push(problem(node.at, "a tool must be an object with a name and an inputSchema"));
    return null;
  }
  const value = toPlain(node) as Record<string, unknown>;
  if (typeof value.name !== "string" || value.name === "") {
    diagnostics.push(problem(node.at, 'a tool needs "name", a non-empty string'));
    return null;
  }
  const schema = value.inputSchema;
  if (schema !== undefined && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    const at = node.entries.find((e) => e.key === "inputSchema")?.value.at ?? node.at;
    diagnostics.push(problem(at, `tool '${value.name}': inputSchema must be an object`));
    return null;
  }
  // Every field as the server listed it: pins hash more than the name and the schema.
  return value as ToolDefinition & Record<string, unknown>;
}

function problem(at: SourceRef, message: string): Diagnostic {
  return {
    severity: "error",
    code: "E_CATALOG_FILE",
    message,
    file: at.file,
    line: at.line,
    column: at.column,
    path: at.path,
    hint: "write it with `toolgate catalog save --output FILE`, or give the server with -- CMD",
  };
}
