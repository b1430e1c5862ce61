import type { Diagnostic } from "../engine/model/diagnostics.js";
import { parseFrontMatterMcp } from "./frontMatterLevel.js";
import type { ServerSelection, ToolsMap } from "./patternList.js";

/** `skills/<name>/SKILL.md`: a skill's MCP settings from its front matter. */
export interface SkillFile {
  name: string;
  file: string;
  /** The servers the skill enables while loaded; its `mcp_tools` entries apply only to these. */
  enabledMcpServers: ServerSelection | null;
  mcpTools: ToolsMap | null;
}

/** `name` and `description` are the Agent Skills standard's own fields; toolgate reads only the MCP ones. */
export const SKILL_FIELDS = ["enabled_mcp_servers", "mcp_tools", "name", "description"] as const;

/** Parses a SKILL.md file. Pure. */
export function parseSkillFile(
  name: string,
  file: string,
  text: string,
): { skill: SkillFile; diagnostics: Diagnostic[] } {
  const { settings, diagnostics } = parseFrontMatterMcp(file, text, `skill '${name}'`, SKILL_FIELDS);
  return { skill: { name, file, ...settings }, diagnostics };
}
