import type { AgentConfigFile } from "../../config/agentConfig.js";
import type { GlobalConfig, ServerAlias } from "../../config/configYaml.js";
import type { GraphAgentFile } from "../../config/graphFile.js";
import type { McpJson, McpServerConfig } from "../../config/mcpJson.js";
import type { ServerSelection } from "../../config/patternList.js";
import type { RoleFile } from "../../config/roleFile.js";
import type { SessionFile } from "../../config/sessionFile.js";
import type { SkillFile } from "../../config/skillFile.js";

/**
 * Everything loaded from a configuration directory (DESIGN §4). Roles, agents, sessions and skills are loaded
 * on demand (the selected ones at start, others when the console switches), so the maps hold what was loaded,
 * not what exists.
 */
export interface ConfigDir {
  dir: string;
  mcp: McpJson;
  global: GlobalConfig;
  roles: ReadonlyMap<string, RoleFile>;
  agents: ReadonlyMap<string, AgentFile>;
  sessions: ReadonlyMap<string, SessionFile>;
  skills: ReadonlyMap<string, SkillFile>;
}

export type AgentFile = AgentConfigFile | GraphAgentFile;

/** What is active: chosen by flags (`--role`, `--agent`, `--session`, `--skill`…, `--node`) or the console. */
export interface ContextSelection {
  role?: string;
  agent?: string;
  session?: string;
  /** In load order; each loaded skill is one layer. */
  skills: string[];
  /** A node of the selected graph agent. */
  node?: string;
}

export function findServer(config: ConfigDir, name: string): McpServerConfig | undefined {
  return config.mcp.servers.find((s) => s.name === name);
}

export function findAlias(config: ConfigDir, name: string): ServerAlias | undefined {
  // A name that is a server is never an alias (a clash is reported as an error at load).
  if (findServer(config, name) !== undefined) return undefined;
  return config.global.aliases.find((a) => a.alias === name);
}

/**
 * The configured servers a name stands for: itself if it is a server, the servers it maps to if it is an alias
 * (aliases do not nest), nothing otherwise. In mcp.json order, without repeats.
 */
export function serversNamedBy(config: ConfigDir, name: string): string[] {
  if (findServer(config, name) !== undefined) return [name];
  const alias = findAlias(config, name);
  if (alias === undefined) return [];
  const targets = new Set(alias.servers.map((s) => s.name));
  return config.mcp.servers.filter((s) => targets.has(s.name)).map((s) => s.name);
}

/** The servers a selection enables, in mcp.json order. */
export function serversOfSelection(config: ConfigDir, selection: ServerSelection): string[] {
  if (selection.all) return config.mcp.servers.map((s) => s.name);
  const named = new Set(selection.names.flatMap((n) => serversNamedBy(config, n.name)));
  return config.mcp.servers.filter((s) => named.has(s.name)).map((s) => s.name);
}

/** True when `name` is a configured server or an alias. */
export function isKnownServerName(config: ConfigDir, name: string): boolean {
  return findServer(config, name) !== undefined || findAlias(config, name) !== undefined;
}
