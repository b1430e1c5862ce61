import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  listConfigDirNames,
  loadAgent,
  loadRole,
  loadSession,
  loadSkill,
  sessionFilePath,
  type LoadResult,
} from "../../config/configDir.js";
import {
  findAlias,
  findServer,
  isKnownServerName,
  serversNamedBy,
  type ConfigDir,
  type ContextSelection,
} from "../../config/configDirModel.js";
import { formatDiagnostic, hasErrors } from "../../config/diagnostics.js";
import type { McpServerConfig } from "../../config/mcpJson.js";
import { serializeSessionFile } from "../../config/sessionFile.js";
import type { Upstream } from "../../gateway/upstream.js";
import { capabilityNames } from "../../gateway/upstream.js";
import { buildServerList, enabledServers } from "../../policy/enabledServers.js";
import { deadPatternDiagnostics, deadPatterns } from "../../policy/explain.js";
import type { ActivePolicy } from "../../policy/policyLayer.js";
import { policyHasNameRules } from "../../policy/policyLayer.js";
import { composeVisibleTools, serverFilter } from "../../policy/serverFilter.js";
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
} from "../../policy/toolsSet.js";
import type { ToolsMap } from "../../config/patternList.js";
import { ToolgateError } from "../../errors.js";
import { describeError, errorText } from "../errorReport.js";
import { buildInfoView, renderInfoView } from "../render/infoView.js";
import { renderListView } from "../render/listView.js";
import { lookupEnabledServer } from "../serverLookup.js";
import type { CompletionContext } from "./completion.js";

/** What one console command printed, and whether it failed. */
export interface CommandResult {
  text: string;
  ok: boolean;
  exit?: boolean;
}

export interface ConsoleSessionOptions {
  config: ConfigDir;
  selection: ContextSelection;
  policy: ActivePolicy | null;
  /** Starts one server (connectUpstream with the directory as base). */
  connect(server: McpServerConfig): Promise<Upstream>;
  /** Log lines (stderr): server start-up, dead-pattern warnings. */
  log(line: string): void;
}

interface Running {
  upstream: Upstream;
}

const ok = (text: string): CommandResult => ({ text, ok: true });
const failed = (code: string, message: string, hint?: string): CommandResult => ({
  text: errorText(code, message, hint),
  ok: false,
});
const lines = (...text: string[]): string => text.map((l) => `${l}\n`).join("");

export const CONSOLE_HELP = lines(
  "Commands:",
  "  .info mcp-server <name>              a running server: transport, capabilities, filter layers, per-tool verdicts",
  "  .info tools                          every tool the next request would offer (<server>__<tool>), after all layers",
  "  .list mcp-servers                    configured servers and aliases: ✓ enabled, ✗ not, [filtered]",
  "  .set mcp_tools.<server> <patterns>   set the innermost layer's patterns for a server or alias (comma-separated)",
  "  .set mcp_tools.<server> null         remove that entry from the innermost layer (not deny-all)",
  "  .set mcp_tools null                  clear the innermost layer's whole map",
  "  .set mcp_tools[.<server>]            show the innermost layer's map (or entry)",
  "  .mcp enable|disable <name>           start or stop a server (or an alias's servers) for this console",
  "  .role [<name>]                       switch role (none without a name); likewise .agent, .session",
  "  .skill load|unload <name>            load or unload a skill",
  "  .node [<id>]                         select a node of the active graph agent",
  "  .help                                this list",
  "  .exit                                leave (closes the servers the console started)",
);

/**
 * The console's state and its commands: the loaded configuration, what is active, which servers run. Every
 * command returns its output as text; nothing here reads the terminal, so piped and interactive use share it.
 */
export class ConsoleSession {
  private config: ConfigDir;
  private selection: ContextSelection;
  private readonly policy: ActivePolicy | null;
  /** `.mcp enable|disable`: session-local, over what the context enables. */
  private readonly overrides = new Map<string, boolean>();
  private readonly running = new Map<string, Running>();
  /** Enabled servers that could not be started, and why. */
  private readonly failures = new Map<string, string>();

  constructor(private readonly options: ConsoleSessionOptions) {
    this.config = options.config;
    this.selection = { ...options.selection, skills: [...options.selection.skills] };
    this.policy = options.policy;
  }

  /** Starts every enabled server (concurrently); reports in mcp.json order on the log. */
  async start(): Promise<void> {
    const text = await this.reconcile();
    for (const line of text.split("\n")) if (line !== "") this.options.log(line);
  }

  /** Closes every server the console started. */
  async close(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => r.upstream.close().catch(() => {})));
  }

  /** The servers enabled now: the context's, changed by `.mcp enable|disable`. In mcp.json order. */
  enabledSet(): Set<string> {
    const fromContext = new Set(enabledServers(this.config, this.selection).servers);
    return new Set(
      this.config.mcp.servers.map((s) => s.name).filter((s) => this.overrides.get(s) ?? fromContext.has(s)),
    );
  }

  runningServers(): string[] {
    return this.config.mcp.servers.map((s) => s.name).filter((s) => this.running.has(s));
  }

  completionContext(): CompletionContext {
    const names = listConfigDirNames(this.config.dir);
    const agent =
      this.selection.agent === undefined ? undefined : this.config.agents.get(this.selection.agent);
    return {
      servers: this.config.mcp.servers.map((s) => s.name),
      aliases: this.config.global.aliases
        .map((a) => a.alias)
        .filter((a) => findServer(this.config, a) === undefined),
      roles: names.roles,
      agents: names.agents,
      sessions: names.sessions,
      skills: names.skills,
      loadedSkills: [...this.selection.skills],
      nodes: agent?.kind === "graph" ? agent.nodes.map((n) => n.id) : [],
    };
  }

  /** Runs one input line. Blank lines and `#` comments do nothing (empty text). */
  async run(line: string): Promise<CommandResult> {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return ok("");
    if (!trimmed.startsWith(".")) {
      return failed("E_CONSOLE_COMMAND", "the console takes dot commands", "`.help` lists them");
    }
    const [command, ...args] = trimmed.split(/\s+/);
    try {
      switch (command) {
        case ".help":
          return ok(CONSOLE_HELP);
        case ".exit":
          return { text: "", ok: true, exit: true };
        case ".info":
          return await this.info(args);
        case ".list":
          return this.list(args);
        case ".set":
          return await this.set(trimmed.slice(".set".length).trim());
        case ".mcp":
          return await this.mcp(args);
        case ".role":
          return await this.switchRole(args);
        case ".agent":
          return await this.switchAgent(args);
        case ".session":
          return await this.switchSession(args);
        case ".skill":
          return await this.skill(args);
        case ".node":
          return await this.switchNode(args);
        default:
          return failed("E_CONSOLE_COMMAND", `unknown command '${command}'`, "`.help` lists the commands");
      }
    } catch (error) {
      return { text: describeError(error), ok: false };
    }
  }

  // ── .info ────────────────────────────────────────────────────────────────────────────────────────────────

  private async info(args: string[]): Promise<CommandResult> {
    if (args[0] === "mcp-server" && args.length === 2) return this.infoServer(args[1]!);
    if (args[0] === "tools" && args.length === 1) return this.infoTools();
    return failed("E_CONSOLE_USAGE", "usage: .info mcp-server <name> | .info tools");
  }

  private async infoServer(name: string): Promise<CommandResult> {
    const found = lookupEnabledServer(
      this.config,
      this.selection,
      name,
      this.running.has(name) ? new Set([name]) : new Set(),
    );
    if (!found.ok) {
      if (found.code !== "E_SERVER_NOT_ENABLED") return failed(found.code, found.message, found.hint);
      const why = this.failures.get(name);
      return failed(
        "E_SERVER_NOT_RUNNING",
        `MCP server '${name}' is configured but not running` +
          (why === undefined ? "" : ` (it failed to start: ${firstLine(why)})`),
        `start the server with \`.mcp enable ${name}\` first`,
      );
    }
    const upstream = this.running.get(name)!.upstream;
    const catalog = (await upstream.listAllTools()).map((t) => t.name);
    const filter = serverFilter(this.config, this.selection, name, this.policy);
    const view = buildInfoView({
      server: name,
      transport: found.server.transport,
      capabilities: capabilityNames(upstream.capabilities),
      layers: filter.layers,
      extras: filter.extras,
      catalog,
    });
    return ok(renderInfoView(view));
  }

  private async infoTools(): Promise<CommandResult> {
    const enabled = this.enabledSet();
    const servers = [];
    let total = 0;
    for (const name of this.runningServers()) {
      if (!enabled.has(name)) continue;
      const tools = await this.running.get(name)!.upstream.listAllTools();
      total += tools.length;
      servers.push({
        server: name,
        gate: serverFilter(this.config, this.selection, name, this.policy).gate,
        tools,
      });
    }
    const composed = composeVisibleTools(servers);
    const out = [
      `tools (${composed.length} allowed / ${total} total on ${servers.length} running server${servers.length === 1 ? "" : "s"})`,
      ...composed.map((t) => `  ${t.name}`),
    ];
    for (const name of enabled) {
      if (this.running.has(name)) continue;
      const why = this.failures.get(name);
      out.push(`⚠ ${name} is enabled but not running${why === undefined ? "" : `: ${firstLine(why)}`}`);
    }
    return ok(lines(...out));
  }

  // ── .list ────────────────────────────────────────────────────────────────────────────────────────────────

  private list(args: string[]): CommandResult {
    if (args.length !== 1 || args[0] !== "mcp-servers") {
      return failed("E_CONSOLE_USAGE", "usage: .list mcp-servers");
    }
    const policyFilters = this.policy !== null && policyHasNameRules(this.policy.compiled.policy);
    const enabled = this.enabledSet();
    const rows = buildServerList(this.config, this.selection, () => policyFilters).map((r) => ({
      ...r,
      enabled: r.servers.some((s) => enabled.has(s)),
    }));
    return ok(renderListView(rows));
  }

  // ── .set ─────────────────────────────────────────────────────────────────────────────────────────────────

  private async set(rest: string): Promise<CommandResult> {
    const space = rest.search(/\s/);
    const setting = space < 0 ? rest : rest.slice(0, space);
    const value = space < 0 ? null : rest.slice(space).trim();
    if (setting === "")
      return failed("E_CONSOLE_USAGE", "usage: .set mcp_tools.<server> <patterns>|null, .set mcp_tools null");
    const target = parseSetTarget(setting);
    if (target.kind === "error") return failed("E_SET_USAGE", target.message);
    const level = innermostWritableLevel(this.config, this.selection);
    if (!level.ok) return failed("E_GRAPH_AGENT_SET", level.message);
    const map = levelMap(this.config, this.selection, level.level);

    if (target.kind === "map") {
      if (value === null) return ok(lines(`${level.label}: mcp_tools = ${mapText(map)}`));
      if (value !== "null") {
        return failed(
          "E_SET_USAGE",
          "mcp_tools takes only null (clear this layer's map); set servers with .set mcp_tools.<server> <patterns>",
        );
      }
      return this.store(level.level, level.label, clearMap(), `mcp_tools cleared`);
    }

    const name = target.server;
    const problem = this.setTargetProblem(name);
    if (problem !== null) return failed("E_SET_TARGET", problem.message, problem.hint);
    if (value === null) {
      const entry = map?.find((e) => e.key === name);
      return ok(
        lines(
          `${level.label}: mcp_tools.${name} = ${entry === undefined ? "(not set)" : entry.patterns.length === 0 ? "[]" : entry.patterns.map((p) => p.source).join(",")}`,
        ),
      );
    }
    const parsed = parseSetValue(value);
    if (parsed.kind === "error") return failed("E_SET_VALUE", parsed.message);
    if (parsed.kind === "remove") {
      const present = map?.some((e) => e.key === name) === true;
      const what = present
        ? `mcp_tools.${name} removed, so this layer no longer restricts it`
        : `mcp_tools.${name} was not set`;
      return this.store(level.level, level.label, applySet(map, name, null), what);
    }
    const stored = await this.store(
      level.level,
      level.label,
      applySet(map, name, parsed.patterns),
      `mcp_tools.${name} = ${parsed.patterns.join(",")}`,
    );
    if (!stored.ok) return stored;
    // Spec: a typo guard against the live tool list, not an error; the patterns stay stored.
    const catalogs = new Map<string, string[]>();
    for (const server of serversNamedBy(this.config, name)) {
      const running = this.running.get(server);
      if (running !== undefined)
        catalogs.set(
          server,
          (await running.upstream.listAllTools()).map((t) => t.name),
        );
    }
    const notes = setPatternNotes(this.config, this.selection, level.level, name, parsed.patterns, catalogs);
    return ok(stored.text + lines(...notes));
  }

  /** Spec: the server must be configured (or an alias) and enabled in the current context. */
  private setTargetProblem(name: string): { message: string; hint?: string } | null {
    if (!isKnownServerName(this.config, name)) {
      return {
        message: `MCP server '${name}' is not configured in mcp.json (nor a mapping_mcp_servers alias)`,
      };
    }
    const enabled = this.enabledSet();
    if (!serversNamedBy(this.config, name).some((s) => enabled.has(s))) {
      return {
        message: `MCP server '${name}' is not enabled in the current context`,
        hint: `enable it with \`.mcp enable ${name}\` first`,
      };
    }
    return null;
  }

  /** Applies `map` at `level`; a session's map is written to sessions/<name>.yaml (other keys and comments kept). */
  private async store(
    level: WritableLevel,
    label: string,
    map: ToolsMap | null,
    what: string,
  ): Promise<CommandResult> {
    const next = withLevelMap(this.config, this.selection, level, map);
    if (level !== "session") {
      this.config = next;
      return ok(lines(`${label}: ${what}; in memory only`));
    }
    const name = this.selection.session!;
    const file = sessionFilePath(this.config.dir, name);
    try {
      const previous = existsSync(file) ? readFileSync(file, "utf8") : null;
      const text = serializeSessionFile(previous, map);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    } catch (error) {
      if (error instanceof ToolgateError) return { text: describeError(error), ok: false };
      return failed(
        "E_SESSION_WRITE",
        `cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const session = next.sessions.get(name)!;
    this.config = { ...next, sessions: new Map(next.sessions).set(name, { ...session, exists: true }) };
    return ok(lines(`${label}: ${what}; saved to sessions/${name}.yaml`));
  }

  // ── .mcp enable|disable ──────────────────────────────────────────────────────────────────────────────────

  private async mcp(args: string[]): Promise<CommandResult> {
    const [action, name] = args;
    if ((action !== "enable" && action !== "disable") || name === undefined || args.length !== 2) {
      return failed("E_CONSOLE_USAGE", "usage: .mcp enable <name> | .mcp disable <name>");
    }
    if (!isKnownServerName(this.config, name)) {
      return failed(
        "E_UNKNOWN_SERVER",
        `MCP server '${name}' is not configured in mcp.json (nor a mapping_mcp_servers alias)`,
      );
    }
    const servers = serversNamedBy(this.config, name);
    const out: string[] = [];
    let allOk = true;
    for (const server of servers) {
      const before = this.overrides.get(server);
      if (action === "disable") {
        this.overrides.set(server, false);
        const running = this.running.get(server);
        this.failures.delete(server);
        if (running === undefined) {
          out.push(`MCP server '${server}' is not running.`);
          continue;
        }
        this.running.delete(server);
        await running.upstream.close();
        out.push(`Stopped MCP server '${server}'.`);
        continue;
      }
      this.overrides.set(server, true);
      if (this.running.has(server)) {
        out.push(`MCP server '${server}' is already running.`);
        continue;
      }
      const started = await this.startServer(server);
      out.push(started.line);
      if (!started.ok) {
        allOk = false;
        // An explicit enable that fails leaves the server as it was.
        if (before === undefined) this.overrides.delete(server);
        else this.overrides.set(server, before);
      }
    }
    if (findAlias(this.config, name) !== undefined && servers.length === 0) {
      out.push(`alias '${name}' maps to no configured server`);
    }
    return { text: out.map((l) => (l.endsWith("\n") ? l : `${l}\n`)).join(""), ok: allOk };
  }

  private async startServer(name: string): Promise<{ ok: boolean; line: string }> {
    const server = findServer(this.config, name)!;
    try {
      const upstream = await this.options.connect(server);
      this.running.set(name, { upstream });
      this.failures.delete(name);
      void upstream.closed.then(() => {
        // A server that went away on its own is no longer running.
        if (this.running.get(name)?.upstream === upstream) {
          this.running.delete(name);
          this.failures.set(name, "the server closed the connection");
          this.options.log(`MCP server '${name}' closed the connection`);
        }
      });
      let count = "";
      try {
        const tools = (await upstream.listAllTools()).map((t) => t.name);
        count = `, ${tools.length} tool${tools.length === 1 ? "" : "s"}`;
        // Spec: dead patterns are logged as warnings when the server's catalog is fetched.
        const layers = serverFilter(this.config, this.selection, name, this.policy).layers;
        for (const d of deadPatternDiagnostics(name, deadPatterns(layers, tools))) {
          this.options.log(formatDiagnostic(d));
        }
      } catch (error) {
        this.options.log(describeError(error).trimEnd());
      }
      return { ok: true, line: `Started MCP server '${name}' (${server.transport}${count}).` };
    } catch (error) {
      const text = describeError(error);
      this.failures.set(name, error instanceof Error ? error.message : String(error));
      return { ok: false, line: text };
    }
  }

  /** Starts newly enabled servers and stops servers no longer enabled; what happened, one line each. */
  private async reconcile(): Promise<string> {
    const enabled = this.enabledSet();
    const stops: string[] = [];
    for (const name of this.runningServers()) {
      if (enabled.has(name)) continue;
      const running = this.running.get(name)!;
      this.running.delete(name);
      await running.upstream.close();
      stops.push(`Stopped MCP server '${name}'.`);
    }
    for (const name of [...this.failures.keys()]) if (!enabled.has(name)) this.failures.delete(name);
    const toStart = [...enabled].filter((s) => !this.running.has(s) && !this.failures.has(s));
    const started = await Promise.all(toStart.map((s) => this.startServer(s)));
    return [...stops, ...started.map((s) => s.line)].map((l) => (l.endsWith("\n") ? l : `${l}\n`)).join("");
  }

  // ── context switches ─────────────────────────────────────────────────────────────────────────────────────

  /** Loads with `load` unless already loaded (keeping in-memory `.set` changes); diagnostics as output. */
  private loadInto(
    kind: string,
    name: string,
    loaded: boolean,
    load: () => LoadResult,
  ): { ok: boolean; text: string } {
    if (loaded) return { ok: true, text: "" };
    const result = load();
    const text = result.diagnostics.map((d) => formatDiagnostic(d) + "\n").join("");
    if (hasErrors(result.diagnostics)) {
      return {
        ok: false,
        text: text + errorText("E_CONFIG", `${kind} '${name}' cannot be used; nothing changed`),
      };
    }
    this.config = result.config;
    return { ok: true, text };
  }

  private async switched(text: string, selection: ContextSelection, message: string): Promise<CommandResult> {
    this.selection = selection;
    return ok(text + lines(message) + (await this.reconcile()));
  }

  private async switchRole(args: string[]): Promise<CommandResult> {
    if (args.length > 1) return failed("E_CONSOLE_USAGE", "usage: .role [<name>]");
    const name = args[0];
    const { role: _drop, ...rest } = this.selection;
    if (name === undefined) return this.switched("", rest, "No role active.");
    const loaded = this.loadInto("role", name, this.config.roles.has(name), () =>
      loadRole(this.config, name),
    );
    if (!loaded.ok) return { text: loaded.text, ok: false };
    return this.switched(loaded.text, { ...rest, role: name }, `Role '${name}' active.`);
  }

  private async switchAgent(args: string[]): Promise<CommandResult> {
    if (args.length > 1) return failed("E_CONSOLE_USAGE", "usage: .agent [<name>]");
    const name = args[0];
    // A node belongs to the agent it was chosen in.
    const { agent: _drop, node, ...rest } = this.selection;
    const nodeNote = node === undefined ? "" : ` Node '${node}' no longer selected.`;
    if (name === undefined) return this.switched("", rest, `No agent active.${nodeNote}`);
    const loaded = this.loadInto("agent", name, this.config.agents.has(name), () =>
      loadAgent(this.config, name),
    );
    if (!loaded.ok) return { text: loaded.text, ok: false };
    const kind = this.config.agents.get(name)?.kind === "graph" ? "Graph agent" : "Agent";
    return this.switched(loaded.text, { ...rest, agent: name }, `${kind} '${name}' active.${nodeNote}`);
  }

  private async switchSession(args: string[]): Promise<CommandResult> {
    if (args.length > 1) return failed("E_CONSOLE_USAGE", "usage: .session [<name>]");
    const name = args[0];
    const { session: _drop, ...rest } = this.selection;
    if (name === undefined) return this.switched("", rest, "No session active.");
    // The file is the session's truth (the console writes through to it), so it is read again on each switch.
    const loaded = this.loadInto("session", name, false, () => loadSession(this.config, name));
    if (!loaded.ok) return { text: loaded.text, ok: false };
    const isNew = this.config.sessions.get(name)?.exists === false;
    return this.switched(
      loaded.text,
      { ...rest, session: name },
      `Session '${name}' active${isNew ? " (new: sessions/" + name + ".yaml is written by the first .set)" : ""}.`,
    );
  }

  private async skill(args: string[]): Promise<CommandResult> {
    const [action, name] = args;
    if ((action !== "load" && action !== "unload") || name === undefined || args.length !== 2) {
      return failed("E_CONSOLE_USAGE", "usage: .skill load <name> | .skill unload <name>");
    }
    const skills = this.selection.skills;
    if (action === "unload") {
      if (!skills.includes(name)) return failed("E_SKILL_NOT_LOADED", `skill '${name}' is not loaded`);
      return this.switched(
        "",
        { ...this.selection, skills: skills.filter((s) => s !== name) },
        `Unloaded skill '${name}'.`,
      );
    }
    if (skills.includes(name)) return ok(lines(`Skill '${name}' is already loaded.`));
    const loaded = this.loadInto("skill", name, this.config.skills.has(name), () =>
      loadSkill(this.config, name),
    );
    if (!loaded.ok) return { text: loaded.text, ok: false };
    return this.switched(
      loaded.text,
      { ...this.selection, skills: [...skills, name] },
      `Loaded skill '${name}'.`,
    );
  }

  private async switchNode(args: string[]): Promise<CommandResult> {
    if (args.length > 1) return failed("E_CONSOLE_USAGE", "usage: .node [<id>]");
    const id = args[0];
    const { node: _drop, ...rest } = this.selection;
    if (id === undefined) return this.switched("", rest, "No node selected.");
    const agent = rest.agent === undefined ? undefined : this.config.agents.get(rest.agent);
    if (agent === undefined || agent.kind !== "graph") {
      return failed(
        "E_SELECTION",
        `node '${id}' needs a graph agent`,
        "switch to one with `.agent <name>` first",
      );
    }
    if (!agent.nodes.some((n) => n.id === id)) {
      return failed(
        "E_SELECTION",
        `graph agent '${agent.name}' has no node '${id}'`,
        agent.nodes.length === 0 ? undefined : `its nodes: ${agent.nodes.map((n) => n.id).join(", ")}`,
      );
    }
    return this.switched("", { ...rest, node: id }, `Node '${id}' of graph agent '${agent.name}' selected.`);
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}

/** A map as `.set` shows it: `github=get_*,list_*; slack=[]`, or `(none)`. */
function mapText(map: ToolsMap | null): string {
  if (map === null || map.length === 0) return "(none)";
  return map
    .map((e) => `${e.key}=${e.patterns.length === 0 ? "[]" : e.patterns.map((p) => p.source).join(",")}`)
    .join("; ");
}
