import { loadSession } from "../config/configDir.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { findServer } from "../engine/model/configDir.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { enabledServers } from "../engine/policy/enabledServers.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { allowAllGate, createPolicyGate } from "../engine/policy/policyGate.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import { withWhitelistLayers } from "../engine/policy/layeredGate.js";
import type { Layer } from "../engine/policy/layers.js";

/**
 * What one client session is allowed: its enabled servers and, per server, the gate (whitelist layers, then
 * the policy) that decides listing, searching, describing and calling alike. Built when the session starts;
 * the session layer's map (`sessions/<name>.yaml`) is read again for every new session, so a map changed with
 * the console applies to the next client without restarting serve.
 */
export interface SessionContext {
  /** Who this is: `stdio`, or the name of the HTTP token. */
  client: string;
  selection: ContextSelection;
  /** Enabled servers, in mcp.json order. */
  servers: McpServerConfig[];
  gates: ReadonlyMap<string, ToolGate>;
  /** The policy alone: its limits and digest (one policy for every server of the session). */
  policy: ToolGate;
}

/**
 * The gate of a server a reload no longer enables for a session that uses it: every tool hidden (as a tool
 * the server does not have), every call refused; the server's connection ends with the session.
 */
export function noLongerEnabled(policy: ToolGate): ToolGate {
  const layer = {
    label: "reload (server no longer enabled)",
    level: "config",
    kind: "mcp_tools",
    patterns: [],
  };
  return withWhitelistLayers([layer as Layer], policy);
}

export type ContextResult = { ok: true; context: SessionContext } | { ok: false; diagnostics: Diagnostic[] };

/** Why a context enables nothing, with how to change that. */
export function noServerMessage(client: string, config: ConfigDir): string {
  if (config.mcp.servers.length === 0) {
    return `no MCP server is configured: add servers to ${config.mcp.file}`;
  }
  return (
    `no MCP server is enabled for ${client}: set enabled_mcp_servers in config.yaml ` +
    `(a list of server names, or 'all'), or in the selected role, agent or skill`
  );
}

export function buildSessionContext(
  config: ConfigDir,
  selection: ContextSelection,
  policy: ActivePolicy | null,
  client: string,
): ContextResult {
  let current = config;
  if (selection.session !== undefined) {
    const loaded = loadSession(config, selection.session, { mustExist: true });
    if (hasErrors(loaded.diagnostics)) return { ok: false, diagnostics: loaded.diagnostics };
    current = loaded.config;
  }
  const names = enabledServers(current, selection).servers;
  if (names.length === 0) {
    return {
      ok: false,
      diagnostics: [
        {
          severity: "error",
          code: "E_NO_SERVER_ENABLED",
          message: noServerMessage(client, current),
          file: current.global.file ?? current.mcp.file,
          line: 0,
          column: 0,
          path: "",
        },
      ],
    };
  }
  const gates = new Map<string, ToolGate>();
  const servers: McpServerConfig[] = [];
  for (const name of names) {
    servers.push(findServer(current, name)!);
    gates.set(name, serverFilter(current, selection, name, policy).gate);
  }
  return {
    ok: true,
    context: {
      client,
      selection,
      servers,
      gates,
      policy: policy === null ? allowAllGate() : createPolicyGate(policy.compiled),
    },
  };
}
