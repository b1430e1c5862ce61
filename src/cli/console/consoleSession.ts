import {
  listConfigDirNames,
  loadAgent,
  loadRole,
  loadSession,
  loadSkill,
  type LoadResult,
} from "../../config/configDir.js";
import { findServer, type ConfigDir, type ContextSelection } from "../../engine/model/configDir.js";
import { formatDiagnostic, hasErrors } from "../../engine/model/diagnostics.js";
import type { McpServerConfig } from "../../engine/model/mcpServers.js";
import type { Upstream } from "../../upstream/upstream.js";
import { capabilityNames } from "../../upstream/upstream.js";
import { buildServerList } from "../../engine/policy/enabledServers.js";
import type { ActivePolicy } from "../../engine/policy/policyLayer.js";
import { policyHasNameRules } from "../../engine/policy/policyLayer.js";
import { composeVisibleTools, serverFilter } from "../../engine/policy/serverFilter.js";
import { describeError, errorText } from "../errorReport.js";
import { buildInfoView, renderInfoView } from "../render/infoView.js";
import { seenTools } from "../seenTools.js";
import { renderListView } from "../render/listView.js";
import { lookupEnabledServer } from "../serverLookup.js";
import { failed, firstLine, lines, ok, type CommandResult } from "./commandResult.js";
import type { CompletionContext } from "./completion.js";
import { ConsoleServers } from "./consoleServers.js";
import { runSet } from "./setCommand.js";

export type { CommandResult } from "./commandResult.js";

export interface ConsoleSessionOptions {
  config: ConfigDir;
  selection: ContextSelection;
  policy: ActivePolicy | null;
  /** Starts one server (connectUpstream with the directory as base). */
  connect(server: McpServerConfig): Promise<Upstream>;
  /** Log lines (stderr): server start-up, dead-pattern warnings. */
  log(line: string): void;
}

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
  private readonly servers: ConsoleServers;
  private readonly log: (line: string) => void;

  constructor(options: ConsoleSessionOptions) {
    this.config = options.config;
    this.selection = { ...options.selection, skills: [...options.selection.skills] };
    this.policy = options.policy;
    this.servers = new ConsoleServers({
      config: () => this.config,
      selection: () => this.selection,
      connect: options.connect,
      log: options.log,
    });
    this.log = options.log;
  }

  /** Starts every enabled server (concurrently); reports in mcp.json order on the log. */
  async start(): Promise<void> {
    const text = await this.servers.reconcile();
    for (const line of text.split("\n")) if (line !== "") this.log(line);
  }

  /** Closes every server the console started. */
  async close(): Promise<void> {
    await this.servers.closeAll();
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
      this.servers.upstream(name) === undefined ? new Set() : new Set([name]),
    );
    if (!found.ok) {
      if (found.code !== "E_SERVER_NOT_ENABLED") return failed(found.code, found.message, found.hint);
      const why = this.servers.failure(name);
      return failed(
        "E_SERVER_NOT_RUNNING",
        `MCP server '${name}' is configured but not running` +
          (why === undefined ? "" : ` (it failed to start: ${firstLine(why)})`),
        `start the server with \`.mcp enable ${name}\` first`,
      );
    }
    const upstream = this.servers.upstream(name)!;
    const { names: catalog, seen } = await seenTools(upstream, name, this.log);
    const filter = serverFilter(this.config, this.selection, name, this.policy);
    const view = buildInfoView({
      server: name,
      transport: found.server.transport,
      capabilities: capabilityNames(upstream.capabilities),
      layers: filter.layers,
      extras: filter.extras,
      catalog,
      seen,
    });
    return ok(renderInfoView(view));
  }

  private async infoTools(): Promise<CommandResult> {
    const enabled = this.servers.enabled();
    const servers = [];
    let total = 0;
    for (const name of this.servers.runningNames()) {
      if (!enabled.has(name)) continue;
      const tools = await this.servers.upstream(name)!.listAllTools();
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
      if (this.servers.upstream(name) !== undefined) continue;
      const why = this.servers.failure(name);
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
    const enabled = this.servers.enabled();
    const rows = buildServerList(this.config, this.selection, () => policyFilters).map((r) => ({
      ...r,
      enabled: r.servers.some((s) => enabled.has(s)),
    }));
    return ok(renderListView(rows));
  }

  // ── .set, .mcp ───────────────────────────────────────────────────────────────────────────────────────────

  private set(rest: string): Promise<CommandResult> {
    return runSet(rest, {
      config: this.config,
      selection: this.selection,
      enabled: this.servers.enabled(),
      catalog: async (server) => {
        const upstream = this.servers.upstream(server);
        return upstream === undefined ? null : (await upstream.listAllTools()).map((t) => t.name);
      },
      commit: (config) => {
        this.config = config;
      },
    });
  }

  private mcp(args: string[]): Promise<CommandResult> {
    const [action, name] = args;
    if ((action !== "enable" && action !== "disable") || name === undefined || args.length !== 2) {
      return Promise.resolve(failed("E_CONSOLE_USAGE", "usage: .mcp enable <name> | .mcp disable <name>"));
    }
    return this.servers.enableOrDisable(action, name);
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
    return ok(text + lines(message) + (await this.servers.reconcile()));
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
