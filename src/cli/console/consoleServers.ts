import {
  findAlias,
  findServer,
  isKnownServerName,
  serversNamedBy,
  unknownServerHint,
  type ConfigDir,
  type ContextSelection,
} from "../../engine/model/configDir.js";
import { formatDiagnostic } from "../../engine/model/diagnostics.js";
import type { McpServerConfig } from "../../engine/model/mcpServers.js";
import type { Upstream } from "../../upstream/upstream.js";
import { enabledServers } from "../../engine/policy/enabledServers.js";
import { deadPatternDiagnostics, deadPatterns } from "../../engine/policy/explain.js";
import { resolveLayers } from "../../engine/policy/layers.js";
import { describeError } from "../errorReport.js";
import { failed, lines, type CommandResult } from "./commandResult.js";

/** What the server manager needs from the console: the current context, how to start a server, where to log. */
export interface ServersHost {
  config(): ConfigDir;
  selection(): ContextSelection;
  connect(server: McpServerConfig): Promise<Upstream>;
  log(line: string): void;
}

/**
 * The servers the console runs. Enabled means: enabled by the context, changed by `.mcp enable|disable`
 * (session-local). Running follows enabled: switching role or agent starts and stops servers.
 */
export class ConsoleServers {
  private readonly overrides = new Map<string, boolean>();
  private readonly running = new Map<string, Upstream>();
  /** Enabled servers that could not be started (or went away), and why. */
  private readonly failures = new Map<string, string>();

  constructor(private readonly host: ServersHost) {}

  /** In mcp.json order. */
  enabled(): Set<string> {
    const config = this.host.config();
    const fromContext = new Set(enabledServers(config, this.host.selection()).servers);
    return new Set(
      config.mcp.servers.map((s) => s.name).filter((s) => this.overrides.get(s) ?? fromContext.has(s)),
    );
  }

  /** In mcp.json order. */
  runningNames(): string[] {
    return this.host
      .config()
      .mcp.servers.map((s) => s.name)
      .filter((s) => this.running.has(s));
  }

  upstream(name: string): Upstream | undefined {
    return this.running.get(name);
  }

  /** Why an enabled server is not running, if it failed. */
  failure(name: string): string | undefined {
    return this.failures.get(name);
  }

  async closeAll(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((u) => u.close().catch(() => {})));
  }

  /** `.mcp enable <name>` / `.mcp disable <name>` (an alias stands for each of its servers). */
  async enableOrDisable(action: "enable" | "disable", name: string): Promise<CommandResult> {
    const config = this.host.config();
    if (!isKnownServerName(config, name)) {
      return failed(
        "E_UNKNOWN_SERVER",
        `MCP server '${name}' is not configured in mcp.json (nor a mapping_mcp_servers alias)`,
        unknownServerHint(config, name),
      );
    }
    const servers = serversNamedBy(config, name);
    if (servers.length === 0 && findAlias(config, name) !== undefined) {
      return failed("E_UNKNOWN_SERVER", `alias '${name}' maps to no configured server`);
    }
    const out: string[] = [];
    let allOk = true;
    for (const server of servers) {
      if (action === "disable") {
        this.overrides.set(server, false);
        this.failures.delete(server);
        out.push(
          (await this.stop(server))
            ? `Stopped MCP server '${server}'.`
            : `MCP server '${server}' is not running.`,
        );
        continue;
      }
      const before = this.overrides.get(server);
      this.overrides.set(server, true);
      if (this.running.has(server)) {
        out.push(`MCP server '${server}' is already running.`);
        continue;
      }
      const started = await this.start(server);
      out.push(started.line);
      if (!started.ok) {
        allOk = false;
        // An explicit enable that fails leaves the server as it was.
        if (before === undefined) this.overrides.delete(server);
        else this.overrides.set(server, before);
      }
    }
    return { text: out.map((l) => (l.endsWith("\n") ? l : `${l}\n`)).join(""), ok: allOk };
  }

  /**
   * Starts newly enabled servers (concurrently) and stops servers no longer enabled; what happened, one line
   * each, stops first, then starts in mcp.json order. Servers that failed to start are not retried here.
   */
  async reconcile(): Promise<string> {
    const enabled = this.enabled();
    const stops: string[] = [];
    for (const name of this.runningNames()) {
      if (!enabled.has(name) && (await this.stop(name))) stops.push(`Stopped MCP server '${name}'.`);
    }
    for (const name of [...this.failures.keys()]) if (!enabled.has(name)) this.failures.delete(name);
    const toStart = [...enabled].filter((s) => !this.running.has(s) && !this.failures.has(s));
    const started = await Promise.all(toStart.map((s) => this.start(s)));
    return [...lines(...stops), ...started.map((s) => (s.line.endsWith("\n") ? s.line : `${s.line}\n`))].join(
      "",
    );
  }

  private async stop(name: string): Promise<boolean> {
    const upstream = this.running.get(name);
    if (upstream === undefined) return false;
    this.running.delete(name);
    await upstream.close();
    return true;
  }

  private async start(name: string): Promise<{ ok: boolean; line: string }> {
    const server = findServer(this.host.config(), name)!;
    let upstream: Upstream;
    try {
      upstream = await this.host.connect(server);
    } catch (error) {
      this.failures.set(name, error instanceof Error ? error.message : String(error));
      return { ok: false, line: describeError(error) };
    }
    this.running.set(name, upstream);
    this.failures.delete(name);
    void upstream.closed.then(() => {
      // A server that went away on its own is no longer running.
      if (this.running.get(name) === upstream) {
        this.running.delete(name);
        this.failures.set(name, "the server closed the connection");
        this.host.log(`MCP server '${name}' closed the connection`);
      }
    });
    let count = "";
    try {
      const tools = (await upstream.listAllTools()).map((t) => t.name);
      count = `, ${tools.length} tool${tools.length === 1 ? "" : "s"}`;
      // Spec: dead patterns are logged as warnings when the server's catalog is fetched.
      const layers = resolveLayers(this.host.config(), this.host.selection(), name);
      for (const d of deadPatternDiagnostics(name, deadPatterns(layers, tools))) {
        this.host.log(formatDiagnostic(d));
      }
    } catch (error) {
      this.host.log(describeError(error).trimEnd());
    }
    return { ok: true, line: `Started MCP server '${name}' (${server.transport}${count}).` };
  }
}
