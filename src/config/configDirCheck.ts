import type { ToolgateCode } from "../engine/model/codes.js";
import type {
  AgentFile,
  ConfigDir,
  GraphAgentFile,
  RoleFile,
  SessionFile,
  SkillFile,
} from "../engine/model/configDir.js";
import {
  findServer,
  isKnownServerName,
  serversNamedBy,
  serversOfSelection,
  unknownServerHint,
} from "../engine/model/configDir.js";
import { appendAll, diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { NameRef, ServerSelection, ToolsMap } from "../engine/model/patternLists.js";
import type { SourceRef } from "../engine/model/source.js";

/**
 * Checks that need more than one file: names in maps and lists against mcp.json and the aliases of
 * config.yaml, the graph validator, and skill entries against the servers the skill enables. Pure.
 */

function warning(code: ToolgateCode, message: string, at: SourceRef, hint?: string): Diagnostic {
  return diagnosticAt("warning", code, at, message, hint);
}

/** An unknown server name, with "did you mean" when a configured server or alias is close to it. */
function unknownName(config: ConfigDir, name: string, at: SourceRef, effect: string): Diagnostic {
  return warning(
    "W_UNKNOWN_SERVER",
    `'${name}' is neither an MCP server in mcp.json nor a mapping_mcp_servers alias; ${effect}`,
    at,
    unknownServerHint(config, name),
  );
}

function checkSelectionNames(config: ConfigDir, selection: ServerSelection | null): Diagnostic[] {
  if (selection === null || selection.all) return [];
  return selection.names
    .filter((n) => !isKnownServerName(config, n.name))
    .map((n) => unknownName(config, n.name, n.at, "it enables nothing"));
}

function checkMapKeys(config: ConfigDir, map: ToolsMap | null): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of map ?? []) {
    if (e.keyAt !== null && !isKnownServerName(config, e.key))
      out.push(unknownName(config, e.key, e.keyAt, "this entry has no effect"));
  }
  return out;
}

/** mcp.json against config.yaml: aliases that clash or point nowhere, unknown names. */
export function checkGlobalConfig(config: ConfigDir): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const a of config.global.aliases) {
    if (findServer(config, a.alias) !== undefined) {
      out.push({
        severity: "error",
        code: "E_ALIAS_CONFLICT",
        message: `alias '${a.alias}' has the name of a server in mcp.json; rename the alias`,
        ...a.at,
      });
      continue;
    }
    for (const target of a.servers) {
      if (findServer(config, target.name) !== undefined) continue;
      const nested = config.global.aliases.some((b) => b.alias === target.name);
      out.push(
        warning(
          "W_UNKNOWN_SERVER",
          nested
            ? `alias '${a.alias}' maps to alias '${target.name}', but aliases do not nest; list its servers instead`
            : `alias '${a.alias}' maps to '${target.name}', which is not an MCP server in mcp.json`,
          target.at,
          nested
            ? undefined
            : unknownServerHint(
                config,
                target.name,
                config.mcp.servers.map((s) => s.name),
              ),
        ),
      );
    }
  }
  appendAll(out, checkSelectionNames(config, config.global.enabledMcpServers));
  appendAll(out, checkMapKeys(config, config.global.mcpTools));
  return out;
}

export function checkRole(config: ConfigDir, role: RoleFile): Diagnostic[] {
  return [...checkSelectionNames(config, role.enabledMcpServers), ...checkMapKeys(config, role.mcpTools)];
}

export function checkSession(config: ConfigDir, session: SessionFile): Diagnostic[] {
  return checkMapKeys(config, session.mcpTools);
}

/** True when the key names a server the selection enables (an alias: when any of its servers is enabled). */
function keyEnabledBy(config: ConfigDir, key: string, enabled: ReadonlySet<string>): boolean {
  return serversNamedBy(config, key).some((s) => enabled.has(s));
}

export function checkSkill(config: ConfigDir, skill: SkillFile): Diagnostic[] {
  const out = [
    ...checkSelectionNames(config, skill.enabledMcpServers),
    ...checkMapKeys(config, skill.mcpTools),
  ];
  const enabled = new Set(
    skill.enabledMcpServers === null ? [] : serversOfSelection(config, skill.enabledMcpServers),
  );
  for (const e of skill.mcpTools ?? []) {
    if (e.keyAt === null || !isKnownServerName(config, e.key) || keyEnabledBy(config, e.key, enabled))
      continue;
    out.push(
      warning(
        "W_SKILL_SERVER_NOT_ENABLED",
        `skill '${skill.name}' does not enable MCP server '${e.key}' (its enabled_mcp_servers), so this entry has no effect`,
        e.keyAt,
      ),
    );
  }
  return out;
}

/** The spec's graph-validator message. */
export function graphServerNotEnabledMessage(server: string): string {
  return `llm node 'mcp_tools' references MCP server '${server}' not enabled by this graph`;
}

function graphEnables(
  config: ConfigDir,
  graph: GraphAgentFile,
): { all: boolean; servers: Set<string>; listed: Set<string> } {
  const sel = graph.mcpServers;
  if (sel?.all) return { all: true, servers: new Set(), listed: new Set() };
  const names: NameRef[] = sel === null ? [] : sel.names;
  return {
    all: false,
    servers: new Set(sel === null ? [] : serversOfSelection(config, sel)),
    listed: new Set(names.map((n) => n.name)),
  };
}

function checkGraph(config: ConfigDir, graph: GraphAgentFile): Diagnostic[] {
  const out = [...checkSelectionNames(config, graph.mcpServers), ...checkMapKeys(config, graph.mcpTools)];
  const enabled = graphEnables(config, graph);
  const isEnabled = (key: string): boolean =>
    enabled.all || enabled.listed.has(key) || keyEnabledBy(config, key, enabled.servers);
  for (const e of graph.mcpTools ?? []) {
    if (e.keyAt === null || !isKnownServerName(config, e.key) || isEnabled(e.key)) continue;
    out.push(
      warning(
        "W_GRAPH_SERVER_NOT_ENABLED",
        `graph 'mcp_tools' names MCP server '${e.key}', which this graph does not enable (mcp_servers), so the entry has no effect`,
        e.keyAt,
      ),
    );
  }
  for (const node of graph.nodes) {
    for (const s of node.toolServers) {
      if (!isEnabled(s.name)) {
        out.push(
          warning(
            "W_GRAPH_SERVER_NOT_ENABLED",
            `node '${node.id}' lists 'mcp:${s.name}', but this graph does not enable MCP server '${s.name}' (mcp_servers)`,
            s.at,
            isKnownServerName(config, s.name) ? undefined : unknownServerHint(config, s.name),
          ),
        );
      }
    }
    for (const e of node.mcpTools ?? []) {
      if (e.keyAt === null || isEnabled(e.key)) continue;
      // A name no server has: say which configured one it is closest to.
      const hint = isKnownServerName(config, e.key) ? undefined : unknownServerHint(config, e.key);
      out.push(
        diagnosticAt(
          "error",
          "E_GRAPH_SERVER_NOT_ENABLED",
          e.keyAt,
          graphServerNotEnabledMessage(e.key),
          hint,
        ),
      );
    }
  }
  return out;
}

export function checkAgent(config: ConfigDir, agent: AgentFile): Diagnostic[] {
  if (agent.kind === "graph") return checkGraph(config, agent);
  return [...checkSelectionNames(config, agent.mcpServers), ...checkMapKeys(config, agent.mcpTools)];
}

/** Every cross-file check over everything loaded. */
export function checkConfigDir(config: ConfigDir): Diagnostic[] {
  return [
    ...checkGlobalConfig(config),
    ...[...config.roles.values()].flatMap((r) => checkRole(config, r)),
    ...[...config.agents.values()].flatMap((a) => checkAgent(config, a)),
    ...[...config.sessions.values()].flatMap((s) => checkSession(config, s)),
    ...[...config.skills.values()].flatMap((s) => checkSkill(config, s)),
  ];
}
