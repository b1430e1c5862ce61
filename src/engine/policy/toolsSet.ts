import type { ConfigDir, ContextSelection } from "../model/configDir.js";
import { isKnownServerName, serversNamedBy } from "../model/configDir.js";
import type { ToolsMap } from "../model/patternLists.js";
import { ToolgateError } from "../errors.js";
import { whitelistPatternProblem } from "../patterns/index.js";
import { isEnabled } from "./enabledServers.js";
import { layerMatch, levelLabel, resolveLayers } from "./layers.js";

/**
 * The `.set mcp_tools…` command as pure functions over the loaded configuration (spec "Adjusting filters at
 * runtime"). The console parses, checks, applies, then persists session maps with serializeSessionFile.
 */

/** The spec's message for `.set mcp_tools…` while a graph agent is active. */
export const GRAPH_AGENT_SET_MESSAGE =
  "Graph agents define MCP tool filters per-node via 'mcp_tools:' in graph.yaml";

export type WritableLevel = "session" | "agent" | "role" | "config";

export type WritableLevelResult =
  { ok: true; level: WritableLevel; label: string } | { ok: false; message: string };

/**
 * The session if one is active, else the agent, else the role, else the global in-memory configuration.
 * A graph agent rejects the command entirely, whatever else is active.
 */
export function innermostWritableLevel(config: ConfigDir, selection: ContextSelection): WritableLevelResult {
  const agent = selection.agent === undefined ? undefined : config.agents.get(selection.agent);
  if (agent?.kind === "graph") return { ok: false, message: GRAPH_AGENT_SET_MESSAGE };
  if (selection.session !== undefined) {
    return { ok: true, level: "session", label: levelLabel("session", selection.session) };
  }
  if (selection.agent !== undefined)
    return { ok: true, level: "agent", label: levelLabel("agent", selection.agent) };
  if (selection.role !== undefined)
    return { ok: true, level: "role", label: levelLabel("role", selection.role) };
  return { ok: true, level: "config", label: levelLabel("config") };
}

function loaded<T>(map: ReadonlyMap<string, T>, kind: string, name: string | undefined): T {
  const value = name === undefined ? undefined : map.get(name);
  if (value === undefined) throw new ToolgateError("E_SELECTION", `no ${kind} is active`);
  return value;
}

/** The map `.set` reads and writes at `level`. */
export function levelMap(
  config: ConfigDir,
  selection: ContextSelection,
  level: WritableLevel,
): ToolsMap | null {
  switch (level) {
    case "session":
      return loaded(config.sessions, "session", selection.session).mcpTools;
    case "agent":
      return loaded(config.agents, "agent", selection.agent).mcpTools;
    case "role":
      return loaded(config.roles, "role", selection.role).mcpTools;
    case "config":
      return config.global.mcpTools;
  }
}

/** A copy of `config` whose map at `level` is `map`. */
export function withLevelMap(
  config: ConfigDir,
  selection: ContextSelection,
  level: WritableLevel,
  map: ToolsMap | null,
): ConfigDir {
  switch (level) {
    case "session": {
      const session = loaded(config.sessions, "session", selection.session);
      return {
        ...config,
        sessions: new Map(config.sessions).set(session.name, { ...session, mcpTools: map }),
      };
    }
    case "agent": {
      const agent = loaded(config.agents, "agent", selection.agent);
      if (agent.kind === "graph") throw new ToolgateError("E_GRAPH_AGENT_SET", GRAPH_AGENT_SET_MESSAGE);
      return { ...config, agents: new Map(config.agents).set(agent.name, { ...agent, mcpTools: map }) };
    }
    case "role": {
      const role = loaded(config.roles, "role", selection.role);
      return { ...config, roles: new Map(config.roles).set(role.name, { ...role, mcpTools: map }) };
    }
    case "config":
      return { ...config, global: { ...config.global, mcpTools: map } };
  }
}

/**
 * `.set mcp_tools.<server> <patterns>` (replace that entry, keeping its place) or `… null` (remove the entry:
 * no restriction from this level, not deny-all). Returns a new map.
 */
export function applySet(
  map: ToolsMap | null,
  server: string,
  patterns: readonly string[] | null,
): ToolsMap | null {
  const current = map ?? [];
  if (patterns === null) {
    if (map === null) return null;
    return current.filter((e) => e.key !== server);
  }
  const entry = {
    key: server,
    keyAt: null,
    patterns: patterns.map((source) => ({ source, at: null, problem: whitelistPatternProblem(source) })),
  };
  const at = current.findIndex((e) => e.key === server);
  if (at < 0) return [...current, entry];
  return current.map((e, i) => (i === at ? entry : e));
}

/** `.set mcp_tools null`: the level's whole map is cleared. */
export function clearMap(): ToolsMap | null {
  return null;
}

export type SetTarget =
  { kind: "map" } | { kind: "server"; server: string } | { kind: "error"; message: string };

/** The setting name: `mcp_tools` (the whole map) or `mcp_tools.<server>`. */
export function parseSetTarget(setting: string): SetTarget {
  if (setting === "mcp_tools") return { kind: "map" };
  if (setting.startsWith("mcp_tools.") && setting.length > "mcp_tools.".length) {
    return { kind: "server", server: setting.slice("mcp_tools.".length) };
  }
  return { kind: "error", message: `unknown setting '${setting}' (use mcp_tools or mcp_tools.<server>)` };
}

export type SetValue =
  | { kind: "remove" }
  | { kind: "patterns"; patterns: string[] }
  | { kind: "error"; code: "E_SET_VALUE" | "E_SET_DENY_ALL"; message: string; hint?: string };

/** Where a deny-all list comes from, since `.set` cannot write one (spec "Adjusting filters at runtime"). */
export function denyAllHint(server: string): string {
  return (
    `deny-all comes from a file: a '${server}: []' entry under mcp_tools, or a bare '${server}:' (null) ` +
    `in a role's or skill's YAML front matter; \`.set mcp_tools.${server} null\` only removes this layer's entry`
  );
}

/** The spellings of an empty string (`""`, `''`). */
const EMPTY_STRING = /^(?:""|'')$/u;

/** A YAML/JSON flow list such as `[]` or `[get_*, list_*]`: brackets no tool name has. */
const FLOW_LIST = /^\[(.*)\]$/su;

/** The items of a flow list's inside, unquoted; none for `[]` or `[ , ]`. */
function flowItems(inside: string): string[] {
  return inside
    .split(",")
    .map((p) => p.trim().replace(/^(["'])(.*)\1$/su, "$2"))
    .filter((p) => p !== "");
}

/**
 * The value of `.set mcp_tools.<server> <value>`: `null`, or patterns separated by commas without spaces.
 * An empty value, `[]` or `""` would be the deny-all list, which `.set` cannot express (spec); they are
 * refused rather than stored as a literal pattern (which would read like the deny-all list but block
 * nothing it should). A bracketed list is refused too: its brackets would become part of the patterns.
 */
export function parseSetValue(text: string, server = "<server>"): SetValue {
  if (text === "null") return { kind: "remove" };
  const list = FLOW_LIST.exec(text);
  const items = list === null ? null : flowItems(list[1]!);
  if (text === "" || EMPTY_STRING.test(text) || items?.length === 0) {
    const shown = text === "" ? "an empty value" : `'${text}'`;
    return {
      kind: "error",
      code: "E_SET_DENY_ALL",
      message: `${shown} would be the deny-all empty list, which .set cannot express; nothing was changed`,
      hint: denyAllHint(server),
    };
  }
  if (items !== null) {
    return {
      kind: "error",
      code: "E_SET_VALUE",
      message: `'${text}' is a bracketed list; .set takes patterns separated by commas, without brackets or spaces`,
      hint: `write \`.set mcp_tools.${server} ${items.join(",")}\``,
    };
  }
  const patterns = text.split(",");
  for (const p of patterns) {
    const problem = whitelistPatternProblem(p);
    if (problem !== null) {
      return {
        kind: "error",
        code: "E_SET_VALUE",
        message: `${problem} (patterns are separated by commas, without spaces)`,
      };
    }
  }
  return { kind: "patterns", patterns };
}

/**
 * Why `.set mcp_tools.<name>` must be rejected, or null: the name must be a configured server or an alias,
 * and enabled in the current context.
 */
export function setTargetProblem(
  config: ConfigDir,
  selection: ContextSelection,
  name: string,
): string | null {
  if (!isKnownServerName(config, name)) {
    return `MCP server '${name}' is not configured in mcp.json (nor a mapping_mcp_servers alias)`;
  }
  if (!isEnabled(config, selection, name)) {
    return `MCP server '${name}' is not enabled in the current context`;
  }
  return null;
}

/** The spec's typo note after `.set`. */
export function setNoteMessage(pattern: string, server: string): string {
  return `Note: pattern '${pattern}' matches no allowed tools on '${server}'.`;
}

/**
 * The notes to print after `.set mcp_tools.<name> <patterns>` was applied at `level`: one per written pattern
 * that matches none of the tools the layers before it allow, on every server `name` stands for whose live
 * catalog is known (`catalogs`). A typo guard, not an error.
 */
export function setPatternNotes(
  config: ConfigDir,
  selection: ContextSelection,
  level: WritableLevel,
  name: string,
  patterns: readonly string[],
  catalogs: ReadonlyMap<string, readonly string[]>,
): string[] {
  const servers = serversNamedBy(config, name).filter((s) => catalogs.has(s));
  if (servers.length === 0) return [];
  const live = new Set<string>();
  let checked = 0;
  for (const server of servers) {
    const layers = resolveLayers(config, selection, server);
    const index = layers.findIndex((l) => l.level === level && (l.via ?? server) === name);
    if (index < 0) continue;
    checked++;
    const allowed = catalogs
      .get(server)!
      .filter((tool) => layers.slice(0, index).every((l) => layerMatch(l, tool) !== null));
    for (const p of layers[index]!.patterns) {
      if (allowed.some((tool) => p.matcher.matches(tool))) live.add(p.source);
    }
  }
  if (checked === 0) return [];
  return [...new Set(patterns)].filter((p) => !live.has(p)).map((p) => setNoteMessage(p, name));
}
