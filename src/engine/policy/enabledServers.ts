import type { ConfigDir, ContextSelection } from "../model/configDir.js";
import { findAlias, findServer, serversNamedBy, serversOfSelection } from "../model/configDir.js";
import type { McpServerConfig } from "../model/mcpServers.js";
import { levelLabel, resolveLayers } from "./layers.js";

/**
 * Which servers are enabled in a context. The spec names the settings (config.yaml `enabled_mcp_servers`, a
 * role's `enabled_mcp_servers`, an agent's `mcp_servers`, a skill's `enabled_mcp_servers`, a graph's
 * `mcp_servers` and a node's `tools: [mcp:…]`) but not how they combine; toolgate's choice:
 *
 * - the innermost level that says which servers to use decides: config.yaml (null or absent: none), then the
 *   role, then the agent (a graph agent always decides: no `mcp_servers` means none);
 * - a selected graph node that has `tools` narrows that to its `mcp:<server>` entries;
 * - each loaded skill adds the servers it enables (a skill brings its servers with it; its `mcp_tools` apply
 *   only to them).
 *
 * Sessions do not choose servers.
 */
export interface EnabledServers {
  /** In mcp.json order. */
  servers: string[];
  /** The label of the level that decided the base set, e.g. `role (reviewer)`; `default` when none did. */
  decidedBy: string;
}

function inOrder(config: ConfigDir, names: Iterable<string>): string[] {
  const set = new Set(names);
  return config.mcp.servers.filter((s) => set.has(s.name)).map((s) => s.name);
}

export function enabledServers(config: ConfigDir, selection: ContextSelection): EnabledServers {
  let servers: string[] = [];
  let decidedBy = "default";
  if (config.global.enabledMcpServers !== null) {
    servers = serversOfSelection(config, config.global.enabledMcpServers);
    decidedBy = levelLabel("config");
  }
  const role = selection.role === undefined ? undefined : config.roles.get(selection.role);
  if (role?.enabledMcpServers != null) {
    servers = serversOfSelection(config, role.enabledMcpServers);
    decidedBy = levelLabel("role", role.name);
  }
  const agent = selection.agent === undefined ? undefined : config.agents.get(selection.agent);
  if (agent !== undefined && (agent.kind === "graph" || agent.mcpServers !== null)) {
    servers = agent.mcpServers === null ? [] : serversOfSelection(config, agent.mcpServers);
    decidedBy = levelLabel("agent", agent.name);
  }
  if (agent?.kind === "graph" && selection.node !== undefined) {
    const node = agent.nodes.find((n) => n.id === selection.node);
    if (node !== undefined && node.tools !== null) {
      const usable = new Set(node.toolServers.flatMap((s) => serversNamedBy(config, s.name)));
      servers = servers.filter((s) => usable.has(s));
      decidedBy = levelLabel("node", node.id);
    }
  }
  const withSkills = new Set(servers);
  for (const name of selection.skills) {
    const skill = config.skills.get(name);
    if (skill?.enabledMcpServers != null) {
      for (const s of serversOfSelection(config, skill.enabledMcpServers)) withSkills.add(s);
    }
  }
  return { servers: inOrder(config, withSkills), decidedBy };
}

/** A server is enabled when it is in the enabled set; an alias when any server it maps to is. */
export function isEnabled(config: ConfigDir, selection: ContextSelection, name: string): boolean {
  const enabled = new Set(enabledServers(config, selection).servers);
  return serversNamedBy(config, name).some((s) => enabled.has(s));
}

export type ServerLookup =
  | { ok: true; server: McpServerConfig }
  | { ok: false; code: "E_UNKNOWN_SERVER" | "E_SERVER_NOT_ENABLED" | "E_ALIAS_NOT_SERVER"; message: string };

/** For `info <server>` / `.info mcp-server <name>`: the server, or why it cannot be shown. */
export function lookupServer(config: ConfigDir, selection: ContextSelection, name: string): ServerLookup {
  const server = findServer(config, name);
  if (server === undefined) {
    const alias = findAlias(config, name);
    if (alias !== undefined) {
      const targets = serversNamedBy(config, name);
      return {
        ok: false,
        code: "E_ALIAS_NOT_SERVER",
        message: `'${name}' is an alias of ${targets.length === 0 ? "no configured server" : targets.join(", ")}; name one server`,
      };
    }
    return {
      ok: false,
      code: "E_UNKNOWN_SERVER",
      message: `MCP server '${name}' is not configured in mcp.json`,
    };
  }
  if (!isEnabled(config, selection, name)) {
    return {
      ok: false,
      code: "E_SERVER_NOT_ENABLED",
      message: `MCP server '${name}' is configured but not enabled in the current context`,
    };
  }
  return { ok: true, server };
}

export interface ServerListRow {
  name: string;
  kind: "server" | "alias";
  /** For an alias: the servers it maps to. */
  servers: string[];
  enabled: boolean;
  /** At least one active filter layer (for an alias: on any of its servers). */
  filtered: boolean;
}

/**
 * The rows of `.list mcp-servers`: configured servers in mcp.json order, then aliases in config.yaml order.
 * `extraFiltered` lets the caller count layers beyond the whitelists (the policy file) as filters.
 */
export function buildServerList(
  config: ConfigDir,
  selection: ContextSelection,
  extraFiltered: (server: string) => boolean = () => false,
): ServerListRow[] {
  const enabled = new Set(enabledServers(config, selection).servers);
  const filtered = new Map(
    config.mcp.servers.map((s) => [
      s.name,
      resolveLayers(config, selection, s.name).length > 0 || extraFiltered(s.name),
    ]),
  );
  const rows: ServerListRow[] = config.mcp.servers.map((s) => ({
    name: s.name,
    kind: "server",
    servers: [s.name],
    enabled: enabled.has(s.name),
    filtered: filtered.get(s.name) ?? false,
  }));
  for (const alias of config.global.aliases) {
    if (findServer(config, alias.alias) !== undefined) continue;
    const servers = serversNamedBy(config, alias.alias);
    rows.push({
      name: alias.alias,
      kind: "alias",
      servers,
      enabled: servers.some((s) => enabled.has(s)),
      filtered: servers.some((s) => filtered.get(s) === true),
    });
  }
  return rows;
}
