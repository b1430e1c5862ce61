import type { ToolgateCode } from "../engine/model/codes.js";
import { appendAll, diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import { patternsFromSeq } from "./patternList.js";
import type { PatternSource } from "../engine/model/patternLists.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import { serverNameProblem } from "./serverName.js";
import { describeKind, entryOf, unknownKeyWarnings } from "./sourceTree.js";
import { parseJsoncSource } from "./jsoncSource.js";
import { parseAuth } from "./mcpAuth.js";
import { parseShare, parseStartupTimeout } from "./mcpServerSettings.js";
import type { McpJson, McpServerConfig, McpTransport } from "../engine/model/mcpServers.js";

/** Reads `mcp.json` into the servers of engine/model/mcpServers.ts, with a diagnostic for every entry it rejects. */

export interface McpJsonResult {
  mcp: McpJson;
  diagnostics: Diagnostic[];
}

const STDIO_FIELDS = [
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "allowedTools",
  "share",
  "startup_timeout",
] as const;
const REMOTE_FIELDS = ["type", "url", "headers", "auth", "allowedTools", "share", "startup_timeout"] as const;
const ALL_FIELDS = [
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "auth",
  "allowedTools",
  "share",
  "startup_timeout",
];

/** The spec's startup warning for `"allowedTools": []`. */
export function emptyAllowedToolsMessage(server: string): string {
  return `MCP server '${server}' has an empty "allowedTools" list, so none of its tools will be callable`;
}

function error(code: ToolgateCode, message: string, at: SourceRef): Diagnostic {
  return diagnosticAt("error", code, at, message);
}

function stringField(map: SourceMap, key: string, server: string, diagnostics: Diagnostic[]): string | null {
  const e = entryOf(map, key);
  if (e === undefined) return null;
  if (e.value.kind === "scalar" && typeof e.value.value === "string") return e.value.value;
  diagnostics.push(
    error(
      "E_FIELD_TYPE",
      `"${key}" of server '${server}' must be a string, but this is ${describeKind(e.value)}`,
      e.value.at,
    ),
  );
  return null;
}

function stringList(node: SourceNode, key: string, server: string, diagnostics: Diagnostic[]): string[] {
  if (node.kind !== "seq") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        `"${key}" of server '${server}' must be a list of strings, but this is ${describeKind(node)}`,
        node.at,
      ),
    );
    return [];
  }
  const out: string[] = [];
  for (const item of node.items) {
    if (item.kind === "scalar" && typeof item.value === "string") out.push(item.value);
    else {
      diagnostics.push(
        error(
          "E_FIELD_TYPE",
          `"${key}" of server '${server}' must hold only strings, but this is ${describeKind(item)}`,
          item.at,
        ),
      );
    }
  }
  return out;
}

function stringMap(
  node: SourceNode,
  key: string,
  server: string,
  diagnostics: Diagnostic[],
): Record<string, string> {
  const out: Record<string, string> = {};
  if (node.kind !== "map") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        `"${key}" of server '${server}' must be an object of strings, but this is ${describeKind(node)}`,
        node.at,
      ),
    );
    return out;
  }
  for (const e of node.entries) {
    if (e.value.kind === "scalar" && typeof e.value.value === "string") {
      Object.defineProperty(out, e.key, {
        value: e.value.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      diagnostics.push(
        error(
          "E_FIELD_TYPE",
          `"${key}.${e.key}" of server '${server}' must be a string, but this is ${describeKind(e.value)}`,
          e.value.at,
        ),
      );
    }
  }
  return out;
}

function parseAllowedTools(
  map: SourceMap,
  server: string,
  diagnostics: Diagnostic[],
): { allowedTools: PatternSource[] | null; allowedToolsAt: SourceRef | null } {
  const e = entryOf(map, "allowedTools");
  if (e === undefined) return { allowedTools: null, allowedToolsAt: null };
  if (e.value.kind !== "seq") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        `"allowedTools" of server '${server}' must be a list of tool-name patterns, but this is ${describeKind(e.value)} ` +
          `(omit the field to allow every tool)`,
        e.value.at,
      ),
    );
    // Fail closed: a whitelist we cannot read blocks everything.
    return { allowedTools: [], allowedToolsAt: e.keyAt };
  }
  const patterns = patternsFromSeq(e.value, diagnostics);
  if (patterns.length === 0) {
    diagnostics.push({
      severity: "warning",
      code: "W_EMPTY_ALLOWED_TOOLS",
      message: emptyAllowedToolsMessage(server),
      ...e.keyAt,
    });
  }
  return { allowedTools: patterns, allowedToolsAt: e.keyAt };
}

function parseServer(
  name: string,
  at: SourceRef,
  node: SourceNode,
  diagnostics: Diagnostic[],
): McpServerConfig | null {
  if (node.kind !== "map") {
    diagnostics.push(
      error("E_FIELD_TYPE", `server '${name}' must be an object, but this is ${describeKind(node)}`, node.at),
    );
    return null;
  }
  const before = diagnostics.length;
  const typeEntry = entryOf(node, "type");
  let transport: McpTransport;
  if (typeEntry === undefined) {
    if (entryOf(node, "url") !== undefined && entryOf(node, "command") === undefined) {
      diagnostics.push(
        error(
          "E_MCP_SERVER",
          `server '${name}' has a "url" but no "type"; add "type": "http" or "type": "sse"`,
          at,
        ),
      );
      return null;
    }
    // The common client format: a stdio server without "type".
    transport = "stdio";
  } else {
    const t = typeEntry.value;
    if (t.kind === "scalar" && (t.value === "stdio" || t.value === "http" || t.value === "sse")) {
      transport = t.value;
    } else {
      diagnostics.push(
        error(
          "E_MCP_SERVER",
          `"type" of server '${name}' must be "stdio", "http" or "sse", but this is ${describeKind(t)}`,
          t.at,
        ),
      );
      return null;
    }
  }

  appendAll(diagnostics, unknownKeyWarnings(node, ALL_FIELDS, `server '${name}'`));
  const own: readonly string[] = transport === "stdio" ? STDIO_FIELDS : REMOTE_FIELDS;
  for (const e of node.entries) {
    if (ALL_FIELDS.includes(e.key) && !own.includes(e.key)) {
      diagnostics.push({
        severity: "warning",
        code: "W_FIELD_IGNORED",
        message: `"${e.key}" does not apply to ${transport} server '${name}' and is ignored`,
        ...e.keyAt,
      });
    }
  }

  const { allowedTools, allowedToolsAt } = parseAllowedTools(node, name, diagnostics);
  const share = { ...parseShare(node, name, diagnostics), ...parseStartupTimeout(node, name, diagnostics) };
  if (transport === "stdio") {
    const command = stringField(node, "command", name, diagnostics);
    if (command === null || command === "") {
      if (entryOf(node, "command") === undefined || command === "") {
        diagnostics.push(error("E_MCP_SERVER", `stdio server '${name}' needs a non-empty "command"`, at));
      }
      return null;
    }
    const argsEntry = entryOf(node, "args");
    const envEntry = entryOf(node, "env");
    const args = argsEntry === undefined ? [] : stringList(argsEntry.value, "args", name, diagnostics);
    const env = envEntry === undefined ? {} : stringMap(envEntry.value, "env", name, diagnostics);
    const cwd = stringField(node, "cwd", name, diagnostics);
    if (diagnostics.slice(before).some((d) => d.severity === "error")) return null;
    return { name, at, transport, command, args, env, cwd, allowedTools, allowedToolsAt, ...share };
  }
  const url = stringField(node, "url", name, diagnostics);
  if (url === null) {
    if (entryOf(node, "url") === undefined) {
      diagnostics.push(error("E_MCP_SERVER", `${transport} server '${name}' needs a "url"`, at));
    }
    return null;
  }
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    const urlAt = entryOf(node, "url")!.value.at;
    diagnostics.push(
      error(
        "E_MCP_SERVER",
        `"url" of server '${name}' must be an http:// or https:// URL, but is '${url}'`,
        urlAt,
      ),
    );
    return null;
  }
  const headersEntry = entryOf(node, "headers");
  const headers =
    headersEntry === undefined ? {} : stringMap(headersEntry.value, "headers", name, diagnostics);
  const authEntry = entryOf(node, "auth");
  const shareAt = entryOf(node, "share")?.value.at ?? null;
  const auth =
    authEntry === undefined
      ? { headers: {} }
      : parseAuth(authEntry, name, { value: share.share, at: shareAt }, headers, diagnostics);
  if (auth === null || diagnostics.slice(before).some((d) => d.severity === "error")) return null;
  return {
    name,
    at,
    transport,
    url,
    headers: { ...headers, ...auth.headers },
    ...(auth.auth === undefined ? {} : { auth: auth.auth }),
    allowedTools,
    allowedToolsAt,
    ...share,
  };
}

/**
 * Parses the text of `mcp.json`. Pure. Written as clients write theirs: JSON with comments and trailing
 * commas, servers under `mcpServers` (Claude, Cursor, most clients) or `servers` (VS Code, whose `inputs`
 * are left alone).
 */
export function parseMcpJson(file: string, text: string): McpJsonResult {
  const parsed = parseJsoncSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const mcp: McpJson = { file, servers: [] };
  if (parsed.root === null) {
    if (diagnostics.length === 0) {
      diagnostics.push({
        severity: "error",
        code: "E_MCP_JSON",
        message: 'mcp.json is empty; it needs an "mcpServers" object',
        file,
        line: 0,
        column: 0,
        path: "",
      });
    }
    return { mcp, diagnostics };
  }
  const root = parsed.root;
  if (root.kind !== "map") {
    diagnostics.push(
      error(
        "E_MCP_JSON",
        `mcp.json must be an object with "mcpServers", but this is ${describeKind(root)}`,
        root.at,
      ),
    );
    return { mcp, diagnostics };
  }
  appendAll(diagnostics, unknownKeyWarnings(root, ["mcpServers", "servers", "inputs"], "mcp.json"));
  const claude = entryOf(root, "mcpServers");
  const vscode = entryOf(root, "servers");
  if (claude !== undefined && vscode !== undefined) {
    diagnostics.push(
      error(
        "E_MCP_JSON",
        'mcp.json has both "mcpServers" and "servers"; keep one (servers under "mcpServers", or under "servers" as VS Code writes them)',
        vscode.keyAt,
      ),
    );
    return { mcp, diagnostics };
  }
  const servers = claude ?? vscode;
  if (servers === undefined) {
    diagnostics.push(
      error(
        "E_MCP_JSON",
        'mcp.json has no "mcpServers" object (or "servers", as VS Code writes it)',
        root.at,
      ),
    );
    return { mcp, diagnostics };
  }
  if (servers.value.kind === "scalar" && servers.value.value === null) return { mcp, diagnostics };
  if (servers.value.kind !== "map") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        `"${servers.key}" must be an object of server entries, but this is ${describeKind(servers.value)}`,
        servers.value.at,
      ),
    );
    return { mcp, diagnostics };
  }
  for (const e of servers.value.entries) {
    const problem = serverNameProblem(e.key);
    if (problem !== null) {
      diagnostics.push(error("E_SERVER_NAME", problem, e.keyAt));
      continue;
    }
    const server = parseServer(e.key, e.keyAt, e.value, diagnostics);
    if (server !== null) mcp.servers.push(server);
  }
  return { mcp, diagnostics };
}
