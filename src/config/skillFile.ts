import type { Diagnostic } from "../engine/model/diagnostics.js";
import { parseFrontMatterMcp } from "./frontMatterLevel.js";

import type { SkillFile } from "../engine/model/configDir.js";

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
