import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseServerSelection, parseToolsMap } from "./patternList.js";
import type { ServerSelection, ToolsMap } from "../engine/model/patternLists.js";
import { describeKind, entryOf, parseFrontMatter, unknownKeyWarnings } from "./sourceTree.js";

/**
 * The MCP settings of a Markdown file's YAML front matter (roles and skills share them): each `mcp_tools` value
 * is a YAML list or a comma-separated string, and a bare `null` blocks every tool of that server.
 */
export interface FrontMatterMcpSettings {
  /** `null`: the file does not say (a role then leaves the configured servers as they are). */
  enabledMcpServers: ServerSelection | null;
  mcpTools: ToolsMap | null;
}

export function parseFrontMatterMcp(
  file: string,
  text: string,
  fileKind: string,
  knownFields: readonly string[],
): { settings: FrontMatterMcpSettings; diagnostics: Diagnostic[] } {
  const parsed = parseFrontMatter(file, text);
  const diagnostics = [...parsed.diagnostics];
  const settings: FrontMatterMcpSettings = { enabledMcpServers: null, mcpTools: null };
  const root = parsed.root;
  if (root === null) return { settings, diagnostics };
  if (root.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `the front matter of ${fileKind} must be a map of settings, but this is ${describeKind(root)}`,
      ...root.at,
    });
    return { settings, diagnostics };
  }
  appendAll(diagnostics, unknownKeyWarnings(root, knownFields, `the front matter of ${fileKind}`));
  const enabled = entryOf(root, "enabled_mcp_servers");
  if (enabled !== undefined) {
    settings.enabledMcpServers = parseServerSelection(
      enabled.value,
      { commaString: true, field: "enabled_mcp_servers", fileKind },
      diagnostics,
    );
  }
  const tools = entryOf(root, "mcp_tools");
  if (tools !== undefined) {
    settings.mcpTools = parseToolsMap(
      tools.value,
      { commaString: true, nullBlocksAll: true, fileKind },
      diagnostics,
    );
  }
  return { settings, diagnostics };
}
