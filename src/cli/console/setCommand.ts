import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { sessionFilePath } from "../../config/configDir.js";
import {
  isKnownServerName,
  serversNamedBy,
  unknownServerHint,
  type ConfigDir,
  type ContextSelection,
} from "../../engine/model/configDir.js";
import type { ToolsMap } from "../../engine/model/patternLists.js";
import { serializeSessionFile } from "../../config/sessionFile.js";
import { ToolgateError } from "../../engine/errors.js";
import {
  applySet,
  clearMap,
  innermostWritableLevel,
  levelMap,
  parseSetTarget,
  parseSetValue,
  setPatternNotes,
  withLevelMap,
  type WritableLevel,
} from "../../engine/policy/toolsSet.js";
import { describeError } from "../errorReport.js";
import { failed, lines, ok, type CommandResult } from "./commandResult.js";

/** What `.set` needs from the console. */
export interface SetHost {
  config: ConfigDir;
  selection: ContextSelection;
  /** The servers enabled now (the context's, changed by `.mcp`). */
  enabled: ReadonlySet<string>;
  /** The live tool names of a running server; null when it does not run. */
  catalog(server: string): Promise<string[] | null>;
  /** Makes `config` the console's configuration. */
  commit(config: ConfigDir): void;
}

/**
 * `.set mcp_tools.<server> <patterns>|null`, `.set mcp_tools null`, and without a value the current entry or
 * map (spec "Adjusting filters at runtime"). `rest` is everything after `.set`.
 */
export async function runSet(rest: string, host: SetHost): Promise<CommandResult> {
  const space = rest.search(/\s/);
  const setting = space < 0 ? rest : rest.slice(0, space);
  const value = space < 0 ? null : rest.slice(space).trim();
  if (setting === "") {
    return failed("E_CONSOLE_USAGE", "usage: .set mcp_tools.<server> <patterns>|null, .set mcp_tools null");
  }
  const target = parseSetTarget(setting);
  if (target.kind === "error") return failed("E_SET_USAGE", target.message);
  const level = innermostWritableLevel(host.config, host.selection);
  if (!level.ok) return failed("E_GRAPH_AGENT_SET", level.message);
  const map = levelMap(host.config, host.selection, level.level);

  if (target.kind === "map") {
    if (value === null) return ok(lines(`${level.label}: mcp_tools = ${mapText(map)}`));
    if (value !== "null") {
      return failed(
        "E_SET_USAGE",
        "mcp_tools takes only null (clear this layer's map); set servers with .set mcp_tools.<server> <patterns>",
      );
    }
    return store(host, level.level, level.label, clearMap(), "mcp_tools cleared");
  }

  const name = target.server;
  const problem = targetProblem(host, name);
  if (problem !== null) return failed("E_SET_TARGET", problem.message, problem.hint);
  if (value === null) {
    const entry = map?.find((e) => e.key === name);
    const shown = entry === undefined ? "(not set)" : patternsText(entry.patterns);
    return ok(lines(`${level.label}: mcp_tools.${name} = ${shown}`));
  }
  const parsed = parseSetValue(value, name);
  if (parsed.kind === "error") return failed(parsed.code, parsed.message, parsed.hint);
  if (parsed.kind === "remove") {
    const present = map?.some((e) => e.key === name) === true;
    const what = present
      ? `mcp_tools.${name} removed, so this layer no longer restricts it`
      : `mcp_tools.${name} was not set`;
    return store(host, level.level, level.label, applySet(map, name, null), what);
  }
  const next = applySet(map, name, parsed.patterns);
  const stored = store(
    host,
    level.level,
    level.label,
    next,
    `mcp_tools.${name} = ${parsed.patterns.join(",")}`,
  );
  if (!stored.ok) return stored;
  // What store committed: the notes are about the layer as it is now.
  const config = withLevelMap(host.config, host.selection, level.level, next);
  // Spec: a typo guard against the live tool list, not an error; the patterns stay stored.
  const catalogs = new Map<string, string[]>();
  for (const server of serversNamedBy(config, name)) {
    const tools = await host.catalog(server);
    if (tools !== null) catalogs.set(server, tools);
  }
  const notes = setPatternNotes(config, host.selection, level.level, name, parsed.patterns, catalogs);
  return ok(stored.text + lines(...notes));
}

/** Spec: the server must be configured (or an alias) and enabled in the current context. */
function targetProblem(host: SetHost, name: string): { message: string; hint?: string } | null {
  if (!isKnownServerName(host.config, name)) {
    return {
      message: `MCP server '${name}' is not configured in mcp.json (nor a mapping_mcp_servers alias)`,
      hint: unknownServerHint(host.config, name),
    };
  }
  if (!serversNamedBy(host.config, name).some((s) => host.enabled.has(s))) {
    return {
      message: `MCP server '${name}' is not enabled in the current context`,
      hint: `enable it with \`.mcp enable ${name}\` first`,
    };
  }
  return null;
}

/** Applies `map` at `level`; a session's map is written to sessions/<name>.yaml (other keys and comments kept). */
function store(
  host: SetHost,
  level: WritableLevel,
  label: string,
  map: ToolsMap | null,
  what: string,
): CommandResult {
  const next = withLevelMap(host.config, host.selection, level, map);
  if (level !== "session") {
    host.commit(next);
    return ok(lines(`${label}: ${what}; in memory only`));
  }
  const name = host.selection.session!;
  const file = sessionFilePath(host.config.dir, name);
  try {
    const previous = existsSync(file) ? readFileSync(file, "utf8") : null;
    const text = serializeSessionFile(previous, map);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (error) {
    // Nothing changes unless the file does: the session's truth is its file.
    if (error instanceof ToolgateError) return { text: describeError(error), ok: false };
    return failed(
      "E_SESSION_WRITE",
      `cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const session = next.sessions.get(name)!;
  host.commit({ ...next, sessions: new Map(next.sessions).set(name, { ...session, exists: true }) });
  return ok(lines(`${label}: ${what}; saved to sessions/${name}.yaml`));
}

function patternsText(patterns: readonly { source: string }[]): string {
  return patterns.length === 0 ? "[]" : patterns.map((p) => p.source).join(",");
}

/** A map as `.set` shows it: `github=get_*,list_*; slack=[]`, or `(none)`. */
function mapText(map: ToolsMap | null): string {
  if (map === null || map.length === 0) return "(none)";
  return map.map((e) => `${e.key}=${patternsText(e.patterns)}`).join("; ");
}
