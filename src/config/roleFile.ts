import type { Diagnostic } from "../engine/model/diagnostics.js";
import { parseFrontMatterMcp } from "./frontMatterLevel.js";
import type { ServerSelection, ToolsMap } from "./patternList.js";

/** `roles/<name>.md`: a role's MCP settings from its YAML metadata header. */
export interface RoleFile {
  name: string;
  file: string;
  /** `null`: the role does not change which servers are enabled. */
  enabledMcpServers: ServerSelection | null;
  /** `null`: no role-level filter (the spec's default). */
  mcpTools: ToolsMap | null;
}

export const ROLE_FIELDS = ["enabled_mcp_servers", "mcp_tools", "name", "description"] as const;

/** Parses a role file. Pure. */
export function parseRoleFile(
  name: string,
  file: string,
  text: string,
): { role: RoleFile; diagnostics: Diagnostic[] } {
  const { settings, diagnostics } = parseFrontMatterMcp(file, text, `role '${name}'`, ROLE_FIELDS);
  return { role: { name, file, ...settings }, diagnostics };
}
