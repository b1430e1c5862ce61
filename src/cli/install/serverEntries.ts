import { createScanner, findNodeAtLocation, getNodeValue, parseTree, type Node } from "jsonc-parser";
import { formatDiagnostic } from "../../engine/model/diagnostics.js";
import { isJsonObject, type JsonObject } from "../../engine/rpc/jsonRpc.js";
import { parseJsoncSource } from "../../config/jsoncSource.js";

/**
 * The server entries of an MCP host's configuration file, found where hosts keep them and classified for
 * `toolgate install`: wrap it, leave it (remote, already wrapped), or refuse it with the reason (rewriting
 * it would lose something). Pure: text in, entries out; nothing here reads or writes a file.
 */

export type EntryPath = string[];

export type EntryVerdict =
  { kind: "wrap" } | { kind: "leave"; why: string } | { kind: "refuse"; why: string };

export interface ServerEntry {
  /** Where the entry object is in the file (a jsonc-parser path). */
  path: EntryPath;
  name: string;
  /** For messages: `mcpServers`, `servers`, or `projects["/p"].mcpServers`. */
  where: string;
  line: number;
  value: JsonObject;
  verdict: EntryVerdict;
}

export type EntriesResult = { ok: true; entries: ServerEntry[] } | { ok: false; message: string };

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot reference.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;

const REMOTE_TYPES = new Set(["http", "sse", "ws", "websocket", "streamable-http", "streamableHttp"]);

/**
 * Finds every server entry: top-level `mcpServers` or `servers` (VS Code), and Claude Code's
 * `projects[*].mcpServers`. `text` has no byte-order mark (offsets are the editor's). The file is checked
 * as the gateway reads mcp.json first: a syntax error or a key given twice is refused at its line, since
 * which of two entries the client uses cannot be told.
 */
export function findServerEntries(file: string, text: string, ownScript?: string): EntriesResult {
  // The client's file, as large as the client made it: only its nesting is bounded.
  const checked = parseJsoncSource(file, text, { anySize: true });
  const problem = checked.diagnostics.find((d) => d.severity === "error");
  if (problem !== undefined) return { ok: false, message: formatDiagnostic(problem) };
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (root === undefined || root.type !== "object") {
    return {
      ok: false,
      message: `${file}: error E_MCP_JSON: not a JSON object with "mcpServers" (or VS Code's "servers")`,
    };
  }
  const maps: { path: EntryPath; where: string }[] = [
    { path: ["mcpServers"], where: "mcpServers" },
    { path: ["servers"], where: "servers" },
  ];
  const projects = findNodeAtLocation(root, ["projects"]);
  for (const property of projects?.type === "object" ? (projects.children ?? []) : []) {
    const key = property.children?.[0];
    if (key?.type === "string") {
      const project = String(key.value);
      maps.push({
        path: ["projects", project, "mcpServers"],
        where: `projects[${JSON.stringify(project)}].mcpServers`,
      });
    }
  }
  const entries: ServerEntry[] = [];
  for (const map of maps) {
    const node = findNodeAtLocation(root, map.path);
    if (node?.type !== "object") continue;
    for (const property of node.children ?? []) {
      const [key, valueNode] = property.children ?? [];
      if (key === undefined || valueNode === undefined) continue;
      const name = String(key.value);
      const value: unknown = getNodeValue(valueNode);
      const entryValue = isJsonObject(value) ? value : {};
      entries.push({
        path: [...map.path, name],
        name,
        where: map.where,
        line: lineOf(text, key.offset),
        value: entryValue,
        verdict: isJsonObject(value)
          ? classify(text, valueNode, entryValue, ownScript)
          : { kind: "refuse", why: "the entry is not an object" },
      });
    }
  }
  return { ok: true, entries };
}

function classify(text: string, node: Node, value: JsonObject, ownScript: string | undefined): EntryVerdict {
  const type = value.type;
  if (typeof value.url === "string" || (typeof type === "string" && REMOTE_TYPES.has(type))) {
    return { kind: "leave", why: "a remote server (url): put toolgate serve --http in front of it instead" };
  }
  if (typeof value.command !== "string" || value.command === "") {
    return { kind: "refuse", why: 'no "command": toolgate wraps stdio servers' };
  }
  const args = value.args;
  if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === "string"))) {
    return { kind: "refuse", why: '"args" is not a list of strings' };
  }
  const argv = [value.command, ...((args as string[] | undefined) ?? [])];
  if (isWrapped(argv, ownScript)) return { kind: "leave", why: "it already runs through toolgate wrap" };
  for (const field of ["command", "args"]) {
    const child = findNodeAtLocation(node, [field]);
    if (child !== undefined && hasComment(text.slice(child.offset, child.offset + child.length))) {
      return {
        kind: "refuse",
        why: `a comment inside its "${field}" would be lost when it is rewritten; move the comment out of the value`,
      };
    }
  }
  const env = isJsonObject(value.env) ? Object.values(value.env) : [];
  if ([...argv, ...env, value.cwd].some((v) => typeof v === "string" && v.includes("${"))) {
    return {
      kind: "refuse",
      why: "it uses ${…} variables the client expands, so toolgate cannot start it to read its catalog; run toolgate policy init with the values and wrap it by hand (docs/wrap.md)",
    };
  }
  return { kind: "wrap" };
}

/** A command line that already starts `toolgate wrap` (installed by this toolgate, or by hand). */
export function isWrapped(argv: readonly string[], ownScript?: string): boolean {
  const wrapAt = argv.indexOf("wrap");
  if (wrapAt < 0) return false;
  return argv
    .slice(0, wrapAt)
    .some((part) => part === ownScript || /(^|[\\/])toolgate(\.js|\.cmd)?$/.test(part));
}

function hasComment(slice: string): boolean {
  const scanner = createScanner(slice, false);
  // Bounded: every scan consumes at least one character or ends the text.
  for (let kind = scanner.scan(); kind !== 17; kind = scanner.scan()) {
    if (kind === LINE_COMMENT || kind === BLOCK_COMMENT) return true;
  }
  return false;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
