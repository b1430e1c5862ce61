import { readFileSync } from "node:fs";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { ToolDefinition } from "../engine/model/gate.js";
import type { SourceNode, SourceRef } from "../engine/model/source.js";
import type { DiffServer } from "../engine/policy/diffModel.js";
import { parseJsoncSource } from "./jsoncSource.js";
import { toPlain } from "./sourceTree.js";

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
    const tools: ToolDefinition[] = [];
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
    servers.push({ name: entry.key, tools });
  }
  if (serversNode.entries.length === 0)
    diagnostics.push(problem(serversNode.at, "the catalog names no server"));
  return { servers: diagnostics.length > 0 ? null : servers, diagnostics };
}

function readTool(node: SourceNode, diagnostics: Diagnostic[]): ToolDefinition | null {
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
  const tool: ToolDefinition = { name: value.name };
  if (Object.hasOwn(value, "description")) tool.description = value.description as string;
  if (schema !== undefined) tool.inputSchema = schema;
  if (Object.hasOwn(value, "annotations")) tool.annotations = value.annotations;
  return tool;
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
