import { unknownServerHint, type ConfigDir, type ContextSelection } from "../engine/model/configDir.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { enabledServers, lookupServer } from "../engine/policy/enabledServers.js";

/**
 * `info <server>` and `.info mcp-server <name>`: the server, or an error that says how to fix it. The console
 * passes its own enabled set (`.mcp enable|disable` are session-local there).
 */
export type ServerLookupResult =
  { ok: true; server: McpServerConfig } | { ok: false; code: string; message: string; hint?: string };

/** How to enable `name`, given which level decides the enabled servers in this context. */
export function enableHint(config: ConfigDir, selection: ContextSelection, name: string): string {
  const decidedBy = enabledServers(config, selection).decidedBy;
  const console = `or run \`.mcp enable ${name}\` in toolgate console`;
  if (selection.node !== undefined && decidedBy.startsWith("node ")) {
    return `node '${selection.node}' uses only the servers in its \`tools:\`; add \`mcp:${name}\` there in graph.yaml, ${console}`;
  }
  if (selection.agent !== undefined && decidedBy.startsWith("agent ")) {
    return `the active agent '${selection.agent}' decides which servers are enabled; add ${name} to its \`mcp_servers:\` (agents/${selection.agent}/), ${console}`;
  }
  if (selection.role !== undefined && decidedBy.startsWith("role ")) {
    return `the active role '${selection.role}' decides which servers are enabled; add ${name} to \`enabled_mcp_servers:\` in roles/${selection.role}.md, ${console}`;
  }
  return `set \`enabled_mcp_servers: [${name}]\` (or \`all\`) in config.yaml, ${console}`;
}

export function lookupEnabledServer(
  config: ConfigDir,
  selection: ContextSelection,
  name: string,
  enabled?: ReadonlySet<string>,
): ServerLookupResult {
  const found = lookupServer(config, selection, name);
  if (found.ok || found.code === "E_SERVER_NOT_ENABLED") {
    const server = config.mcp.servers.find((s) => s.name === name)!;
    const isEnabled = enabled === undefined ? found.ok : enabled.has(name);
    if (isEnabled) return { ok: true, server };
    return {
      ok: false,
      code: "E_SERVER_NOT_ENABLED",
      message: `MCP server '${name}' is configured but not enabled in the current context`,
      hint:
        enabled === undefined
          ? enableHint(config, selection, name)
          : `start it with \`.mcp enable ${name}\` first`,
    };
  }
  if (found.code === "E_UNKNOWN_SERVER") {
    const servers = config.mcp.servers.map((s) => s.name);
    return {
      ok: false,
      code: found.code,
      message: found.message,
      hint: unknownServerHint(config, name, servers),
    };
  }
  return { ok: false, code: found.code, message: found.message };
}
