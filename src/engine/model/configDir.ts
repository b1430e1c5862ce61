import type { McpJson, McpServerConfig } from "./mcpServers.js";
import type { ServerSelection, ToolsMap, NameRef } from "./patternLists.js";
import type { SourceRef } from "./source.js";
import { unknownNameHint } from "../text/didYouMean.js";

/**
 * Everything loaded from a configuration directory (docs/design.md, our choices). Roles, agents, sessions and skills are loaded
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

/** Every name a server can be given by: the servers of mcp.json, then the aliases of config.yaml. */
export function knownServerNames(config: ConfigDir): string[] {
  return [...config.mcp.servers.map((s) => s.name), ...config.global.aliases.map((a) => a.alias)];
}

/**
 * The hint for a server name nobody configured: "did you mean 'fs'?" when a configured server or alias is
 * close to it (edit distance), else the names there are. `names` narrows the candidates (e.g. to servers only).
 */
export function unknownServerHint(config: ConfigDir, name: string, names = knownServerNames(config)): string {
  return unknownNameHint(
    name,
    names,
    "configured servers",
    `mcp.json (${config.mcp.file}) configures no servers`,
  );
}

/** True when `name` is a configured server or an alias. */
export function isKnownServerName(config: ConfigDir, name: string): boolean {
  return findServer(config, name) !== undefined || findAlias(config, name) !== undefined;
}

/** `agents/<name>/config.yaml`: an agent's servers and its per-server whitelists (YAML list values only). */
export interface AgentConfigFile {
  kind: "agent";
  name: string;
  file: string;
  /** `null`: the agent does not change which servers are enabled. */
  mcpServers: ServerSelection | null;
  mcpTools: ToolsMap | null;
}

/** `config.yaml`: the global configuration level. */

/** A `mapping_mcp_servers` entry: one name standing for several servers. */
export interface ServerAlias {
  alias: string;
  at: SourceRef;
  servers: NameRef[];
}

export interface GlobalConfig {
  /** `null` when there is no config.yaml. */
  file: string | null;
  /** `null`: no server is enabled by default (the spec's default). */
  enabledMcpServers: ServerSelection | null;
  aliases: ServerAlias[];
  /** The config level's `mcp_tools`; `.set` writes here when no session, agent or role is active. */
  mcpTools: ToolsMap | null;
  /** `policy:` as written (relative to the configuration directory) and where. */
  policy: { path: string; at: SourceRef } | null;
  /** `tests:` the policy test file of wrap's and serve's start-up self-test (relative to the directory). */
  tests: { path: string; at: SourceRef } | null;
  /** `approval_keys:` the Ed25519 public keys (PEM files, relative to the directory) artifacts may be signed with. */
  approvalKeys: { path: string; at: SourceRef }[];
  /** `state:` where serve keeps what replicas share (`redis://…`); `null`: this process's memory. */
  state: { url: string; at: SourceRef } | null;
  /** `oauth:` serve's resource server settings (flags win): issuers, audience, required scopes. */
  oauth: { issuers: string[]; audience: string | null; scopes: string[]; at: SourceRef } | null;
}

/**
 * `agents/<name>/graph.yaml`: a graph agent. toolgate reads only what decides MCP tools: the graph's servers,
 * its graph-level `mcp_tools` (applies to every node) and, per node, `type`, `tools` and `mcp_tools`.
 */
export interface GraphNode {
  id: string;
  at: SourceRef;
  /** `null` when the node has no (string) `type`. */
  type: string | null;
  /** `null`: the node has no `tools` field. */
  tools: string[] | null;
  /** The servers named by `mcp:<server>` entries of `tools`. */
  toolServers: NameRef[];
  /** Node-level whitelists (only `llm` nodes may have them). */
  mcpTools: ToolsMap | null;
  mcpToolsAt: SourceRef | null;
}

export interface GraphAgentFile {
  kind: "graph";
  name: string;
  file: string;
  /** `null`: no `mcp_servers` field, so no server is available to the nodes. */
  mcpServers: ServerSelection | null;
  mcpTools: ToolsMap | null;
  nodes: GraphNode[];
}

/** `roles/<name>.md`: a role's MCP settings from its YAML metadata header. */
export interface RoleFile {
  name: string;
  file: string;
  /** `null`: the role does not change which servers are enabled. */
  enabledMcpServers: ServerSelection | null;
  /** `null`: no role-level filter (the spec's default). */
  mcpTools: ToolsMap | null;
}

/**
 * `sessions/<name>.yaml`: the session level. Its map comes only from `.set mcp_tools.<server>` (sessions do not
 * inherit the role's map); toolgate persists it here. Values may be YAML lists (what toolgate writes) or
 * comma-separated strings (what `.set` takes).
 */
export interface SessionFile {
  name: string;
  file: string;
  /** False for a session that has no file yet (it is created by the first `.set`). */
  exists: boolean;
  mcpTools: ToolsMap | null;
}

/** `skills/<name>/SKILL.md`: a skill's MCP settings from its front matter. */
export interface SkillFile {
  name: string;
  file: string;
  /** The servers the skill enables while loaded; its `mcp_tools` entries apply only to these. */
  enabledMcpServers: ServerSelection | null;
  mcpTools: ToolsMap | null;
}
