import { whitelistPatternProblem } from "../engine/patterns/index.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceRef, SourceNode, SourceScalar } from "../engine/model/source.js";
import { describeKind, toPlain } from "./sourceTree.js";
import type { PatternSource, ToolsMap, ServerSelection, NameRef } from "../engine/model/patternLists.js";

/**
 * Tool-name pattern lists and per-server whitelist maps (`allowedTools`, `mcp_tools`) as every file of the
 * configuration directory writes them. Each file allows a different set of value forms (the spec says which);
 * this module parses all of them and reports the forbidden ones with file and line.
 */

/** Which value forms a file accepts for each server of its `mcp_tools` map. */
export interface ToolsValueForms {
  /** `github: get_*,list_*` (config.yaml, roles, skills, sessions). */
  commaString: boolean;
  /** `github:` / `github: null` blocks all of the server's tools (role and skill front matter only). */
  nullBlocksAll: boolean;
  /** How the file is named in messages, e.g. `agents/<name>/config.yaml`. */
  fileKind: string;
}

function invalidPatternWarning(problem: string, at: SourceRef): Diagnostic {
  return {
    severity: "warning",
    code: "W_INVALID_PATTERN",
    message: `${problem}; this pattern matches nothing`,
    ...at,
  };
}

/** A pattern from one list item (any YAML value). Invalid items warn and are kept as matching nothing. */
export function patternFromNode(node: SourceNode, diagnostics: Diagnostic[]): PatternSource {
  const plain = toPlain(node);
  const problem = whitelistPatternProblem(plain);
  const source =
    node.kind === "scalar" ? (typeof node.value === "string" ? node.value : node.raw) : describeKind(node);
  if (problem !== null) diagnostics.push(invalidPatternWarning(problem, node.at));
  return { source, at: node.at, problem };
}

/**
 * Splits a comma-separated string into patterns, with no trimming: the spec writes them without spaces, and a
 * piece with a space is an invalid pattern (warned, matches nothing) rather than silently repaired. For a plain
 * one-line scalar each piece gets its own column.
 */
export function patternsFromCommaString(
  node: SourceScalar,
  text: string,
  diagnostics: Diagnostic[],
): PatternSource[] {
  const exact = !node.quoted && node.raw === text && !text.includes("\n");
  const out: PatternSource[] = [];
  let offset = 0;
  for (const piece of text.split(",")) {
    const at: SourceRef = exact ? { ...node.at, column: node.at.column + offset } : { ...node.at };
    const problem = whitelistPatternProblem(piece);
    if (problem !== null) diagnostics.push(invalidPatternWarning(problem, at));
    out.push({ source: piece, at, problem });
    offset += piece.length + 1;
  }
  return out;
}

/** Patterns from a YAML/JSON list (`allowedTools`, or a list value of `mcp_tools`). */
export function patternsFromSeq(
  node: SourceNode & { kind: "seq" },
  diagnostics: Diagnostic[],
): PatternSource[] {
  return node.items.map((item) => patternFromNode(item, diagnostics));
}

function listExample(text: string): string {
  return `[${text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .join(", ")}]`;
}

/**
 * The patterns of one `mcp_tools` entry, or an error for a form this file does not accept. An entry in error
 * blocks every tool of its server, so a caller that goes on despite the error still fails closed.
 */
function entryPatterns(
  key: string,
  value: SourceNode,
  forms: ToolsValueForms,
  diagnostics: Diagnostic[],
): PatternSource[] {
  if (value.kind === "seq") return patternsFromSeq(value, diagnostics);
  if (value.kind === "scalar" && value.value === null) {
    if (forms.nullBlocksAll) return [];
    diagnostics.push({
      severity: "error",
      code: "E_MCP_TOOLS_FORM",
      message:
        `'mcp_tools.${key}' has no value; in ${forms.fileKind} write ${key}: [] to block every tool ` +
        `of the server, or remove the entry to restrict nothing`,
      ...value.at,
    });
    return [];
  }
  if (value.kind === "scalar" && typeof value.value === "string") {
    if (forms.commaString) return patternsFromCommaString(value, value.value, diagnostics);
    diagnostics.push({
      severity: "error",
      code: "E_MCP_TOOLS_FORM",
      message:
        `'mcp_tools' values must be YAML lists in ${forms.fileKind}, not a string ` +
        `(write ${key}: ${listExample(value.value)})`,
      ...value.at,
    });
    return [];
  }
  const accepted = forms.commaString ? "a YAML list or a comma-separated string" : "a YAML list";
  diagnostics.push({
    severity: "error",
    code: "E_FIELD_TYPE",
    message: `'mcp_tools.${key}' must be ${accepted} of tool-name patterns, but this is ${describeKind(value)}`,
    ...value.at,
  });
  return [];
}

/**
 * Parses an `mcp_tools` value. `null` (absent, or `mcp_tools: null`) is no map. A value that is not a map is
 * an error and yields no map; the caller must not start with errors.
 */
export function parseToolsMap(
  node: SourceNode,
  forms: ToolsValueForms,
  diagnostics: Diagnostic[],
): ToolsMap | null {
  if (node.kind === "scalar" && node.value === null) return null;
  if (node.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `'mcp_tools' must be a map of MCP server name to tool-name patterns, but this is ${describeKind(node)}`,
      ...node.at,
    });
    return null;
  }
  return node.entries.map((e) => ({
    key: e.key,
    keyAt: e.keyAt,
    patterns: entryPatterns(e.key, e.value, forms, diagnostics),
  }));
}

export interface ServerSelectionForms {
  /** `github,slack` and the bare keyword `all` (config.yaml, roles, skills); lists are always accepted. */
  commaString: boolean;
  /** The field as named in messages, e.g. `enabled_mcp_servers`. */
  field: string;
  fileKind: string;
}

/**
 * Parses `enabled_mcp_servers` / `mcp_servers`. Returns `null` for an absent or null value (the caller gives
 * null its level's meaning). A list item or comma piece `all` enables every configured server.
 */
export function parseServerSelection(
  node: SourceNode,
  forms: ServerSelectionForms,
  diagnostics: Diagnostic[],
): ServerSelection | null {
  if (node.kind === "scalar" && node.value === null) return null;
  const names: NameRef[] = [];
  if (node.kind === "seq") {
    node.items.forEach((item, i) => {
      if (item.kind === "scalar" && typeof item.value === "string" && item.value.trim() !== "") {
        names.push({ name: item.value.trim(), at: item.at });
      } else {
        diagnostics.push({
          severity: "error",
          code: "E_FIELD_TYPE",
          message: `'${forms.field}' items must be MCP server names, but item ${i} is ${describeKind(item)}`,
          ...item.at,
        });
      }
    });
  } else if (node.kind === "scalar" && typeof node.value === "string") {
    if (!forms.commaString) {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message:
          `'${forms.field}' must be a YAML list in ${forms.fileKind}, not a string ` +
          `(write ${forms.field}: ${listExample(node.value)})`,
        ...node.at,
      });
      return { all: false, names: [], at: node.at };
    }
    // Server names cannot contain whitespace, so trimming `github, slack` loses nothing.
    for (const piece of node.value.split(",")) {
      const name = piece.trim();
      if (name !== "") names.push({ name, at: { ...node.at } });
    }
  } else {
    const accepted = forms.commaString ? "a YAML list, a comma-separated string or `all`" : "a YAML list";
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `'${forms.field}' must name MCP servers (${accepted}), but this is ${describeKind(node)}`,
      ...node.at,
    });
    return { all: false, names: [], at: node.at };
  }
  if (names.some((n) => n.name === "all")) return { all: true, at: node.at };
  return { all: false, names, at: node.at };
}
