import type { ConfigDir, ContextSelection } from "../model/configDir.js";
import { findServer, serversNamedBy, serversOfSelection, unknownServerHint } from "../model/configDir.js";
import type { PatternSource, ToolsMap } from "../model/patternLists.js";
import type { SourceRef } from "../model/source.js";
import { ToolgateError } from "../errors.js";
import { compileWhitelistGlob, type WhitelistGlob } from "../patterns/index.js";
import type { Rule } from "../model/decision.js";
import type { NameVerdict } from "../model/gate.js";
import { appendAll } from "../model/diagnostics.js";

/**
 * Whitelist layers (spec "Filter layers"): every active level that mentions a server contributes one layer for
 * it, and a tool is visible only if every layer has a pattern matching it. Pure.
 */

export type LayerLevel = "global" | "config" | "role" | "agent" | "session" | "skill" | "node";

/** The display order, which is also the order "the first layer that hid" is looked for in (docs/design.md, our choices). */
export const LAYER_LEVELS: readonly LayerLevel[] = [
  "global",
  "config",
  "role",
  "agent",
  "session",
  "skill",
  "node",
];

export interface LayerPattern {
  source: string;
  valid: boolean;
  problem?: string;
  at?: SourceRef;
  /** Matches nothing when the pattern is invalid. */
  matcher: WhitelistGlob;
}

export interface Layer {
  /** Exactly as the info view prints it: `global (mcp.json)`, `role (reviewer)`, `skill (triage) via git` … */
  label: string;
  level: LayerLevel;
  /** The setting it comes from: `allowedTools` (mcp.json) or `mcp_tools`. */
  kind: "allowedTools" | "mcp_tools";
  /** `[]` blocks every tool. */
  patterns: LayerPattern[];
  /** Where the map key (or `allowedTools`) is written; absent for entries written by `.set`. */
  at?: SourceRef;
  /** The `mapping_mcp_servers` alias the entry was written under, when it was not the server's own name. */
  via?: string;
}

/** `global (mcp.json)`, `config (config.yaml)`, `role (<name>)`, `agent (<name>)` … */
export function levelLabel(level: LayerLevel, name?: string): string {
  if (level === "global") return "global (mcp.json)";
  if (level === "config") return "config (config.yaml)";
  return `${level} (${name ?? ""})`;
}

function neverMatches(source: string, problem: string): WhitelistGlob {
  return Object.freeze({ source, isLiteral: false, problem, matches: () => false });
}

export function compileLayerPattern(p: PatternSource): LayerPattern {
  const base = p.at === null ? {} : { at: p.at };
  if (p.problem !== null) {
    // The source of a non-string value (e.g. the number 42) may look like a valid pattern: never compile it.
    return {
      source: p.source,
      valid: false,
      problem: p.problem,
      ...base,
      matcher: neverMatches(p.source, p.problem),
    };
  }
  const matcher = compileWhitelistGlob(p.source);
  if (matcher.problem !== null) {
    return { source: p.source, valid: false, problem: matcher.problem, ...base, matcher };
  }
  return { source: p.source, valid: true, ...base, matcher };
}

/**
 * The layers one level's map contributes for `server`: one per entry naming the server or an alias that maps
 * to it, in map order. Several entries of one level that reach the same server (`github` and an alias `git`)
 * are several layers, so they intersect: each entry keeps its own meaning, and an `[]` entry for an alias
 * still blocks all of the alias's servers as the spec says (a union would let a sibling entry reopen them).
 */
function mapLayers(
  config: ConfigDir,
  map: ToolsMap | null,
  server: string,
  level: LayerLevel,
  name?: string,
): Layer[] {
  const out: Layer[] = [];
  for (const entry of map ?? []) {
    if (!serversNamedBy(config, entry.key).includes(server)) continue;
    const via = entry.key === server ? undefined : entry.key;
    const label = levelLabel(level, name) + (via === undefined ? "" : ` via ${via}`);
    out.push({
      label,
      level,
      kind: "mcp_tools",
      patterns: entry.patterns.map(compileLayerPattern),
      ...(entry.keyAt === null ? {} : { at: entry.keyAt }),
      ...(via === undefined ? {} : { via }),
    });
  }
  return out;
}

function selected<T>(map: ReadonlyMap<string, T>, kind: string, name: string): T {
  const value = map.get(name);
  if (value === undefined) throw new ToolgateError("E_SELECTION", `${kind} '${name}' is not loaded`);
  return value;
}

/**
 * The active layers for `server` in the spec's order: global, config, role, agent (for a graph agent: its
 * graph-level map), session, one per loaded skill (only for servers that skill enables), node. A level that
 * does not mention the server contributes nothing.
 *
 * Throws `E_UNKNOWN_SERVER` for a name that is not a server in mcp.json (aliases are expanded by the caller),
 * and `E_SELECTION` for a selected role, agent, session, skill or node that is not loaded.
 */
export function resolveLayers(config: ConfigDir, selection: ContextSelection, server: string): Layer[] {
  const entry = findServer(config, server);
  if (entry === undefined) {
    throw new ToolgateError(
      "E_UNKNOWN_SERVER",
      `MCP server '${server}' is not configured in mcp.json`,
      unknownServerHint(
        config,
        server,
        config.mcp.servers.map((s) => s.name),
      ),
    );
  }
  const layers: Layer[] = [];
  if (entry.allowedTools !== null) {
    layers.push({
      label: levelLabel("global"),
      level: "global",
      kind: "allowedTools",
      patterns: entry.allowedTools.map(compileLayerPattern),
      ...(entry.allowedToolsAt === null ? {} : { at: entry.allowedToolsAt }),
    });
  }
  appendAll(layers, mapLayers(config, config.global.mcpTools, server, "config"));
  if (selection.role !== undefined) {
    const role = selected(config.roles, "role", selection.role);
    appendAll(layers, mapLayers(config, role.mcpTools, server, "role", role.name));
  }
  const agent = selection.agent === undefined ? undefined : selected(config.agents, "agent", selection.agent);
  if (agent !== undefined) appendAll(layers, mapLayers(config, agent.mcpTools, server, "agent", agent.name));
  if (selection.session !== undefined) {
    const session = selected(config.sessions, "session", selection.session);
    appendAll(layers, mapLayers(config, session.mcpTools, server, "session", session.name));
  }
  for (const name of new Set(selection.skills)) {
    const skill = selected(config.skills, "skill", name);
    // Spec: a skill's entries only apply to servers the skill enables.
    const enabled =
      skill.enabledMcpServers === null ? [] : serversOfSelection(config, skill.enabledMcpServers);
    if (enabled.includes(server))
      appendAll(layers, mapLayers(config, skill.mcpTools, server, "skill", skill.name));
  }
  if (selection.node !== undefined) {
    if (agent === undefined || agent.kind !== "graph") {
      throw new ToolgateError("E_SELECTION", `node '${selection.node}' needs a graph agent`);
    }
    const node = agent.nodes.find((n) => n.id === selection.node);
    if (node === undefined) {
      throw new ToolgateError("E_SELECTION", `graph agent '${agent.name}' has no node '${selection.node}'`);
    }
    appendAll(layers, mapLayers(config, node.mcpTools, server, "node", node.id));
  }
  return layers;
}

/** The first pattern of `layer` matching `tool`, or null. */
export function layerMatch(layer: Layer, tool: string): LayerPattern | null {
  for (const p of layer.patterns) if (p.matcher.matches(tool)) return p;
  return null;
}

/** `get_* | list_*`, or `[]` for a layer that blocks everything. */
export function layerPatternText(layer: Layer): string {
  return layer.patterns.length === 0 ? "[]" : layer.patterns.map((p) => p.source).join(" | ");
}

/**
 * The name stage of the whitelist layers alone, in the shape of a {@link NameVerdict}: a hidden tool names the
 * first layer that hid it (its patterns as the rule's value); a visible one names the last layer's matching
 * pattern. The code is null: a whitelisted-out tool is simply not there (the policy file has its own codes).
 */
export function layerVerdict(layers: readonly Layer[], tool: string): NameVerdict {
  let last: Rule | null = null;
  for (const layer of layers) {
    const match = layerMatch(layer, tool);
    if (match === null) {
      const rule: Rule = { layer: layer.label, kind: layer.kind, value: layerPatternText(layer) };
      if (layer.at !== undefined) rule.at = layer.at;
      return {
        visible: false,
        explain: false,
        code: null,
        rule,
        reason: `tool '${tool}' is hidden by the ${layer.label} layer: no pattern of ${rule.value} matches it`,
      };
    }
    last = { layer: layer.label, kind: layer.kind, value: match.source };
    if (match.at !== undefined) last.at = match.at;
  }
  return {
    visible: true,
    explain: false,
    code: null,
    rule: last,
    reason: layers.length === 0 ? "no whitelist layer applies" : "every whitelist layer allows it",
  };
}
