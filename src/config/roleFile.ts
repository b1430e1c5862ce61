import type { Diagnostic } from "../engine/model/diagnostics.js";
import { parseFrontMatterMcp } from "./frontMatterLevel.js";

import type { RoleFile } from "../engine/model/configDir.js";

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
