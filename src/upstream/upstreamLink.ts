import type { Client, ClientCapabilities } from "@modelcontextprotocol/client";
import type { LogFields } from "../engine/model/logFields.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { ToolgateError, upstreamAuthCodeOf, type UpstreamAuthCode } from "../engine/errors.js";
import type { Upstream, UpstreamOptions } from "./upstream.js";
import { upstreamAuthErrorIn, type UpstreamAuth } from "./upstreamAuth.js";
import { ToolCatalog, type CatalogSnapshot, type CatalogState } from "../session/toolCatalog.js";
import { NO_METRICS, type GatewayMetrics, type UpstreamWatch } from "../ops/gatewayMetrics.js";

/**
 * One client session's connection to one enabled server: opened on first need, kept and reused for every
 * request of that session, closed with the session. When the connection ends without being asked to (a
 * stdio server that exited, a remote one that dropped), it is reopened with exponential backoff; while it
 * is down, requests fail at once with `E_UPSTREAM_UNAVAILABLE` saying when the next attempt is, never hang.
 */

export type ConnectUpstream = (server: McpServerConfig, options: UpstreamOptions) => Promise<Upstream>;

export interface Backoff {
  /** Delay before the first reconnection attempt; doubled after each failure. */
  initialMs: number;
  maxMs: number;
  /** A connection that stayed up this long resets the delay to `initialMs`. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, maxMs: 30_000, stableMs: 10_000 };

export interface LinkHooks {
  /** Registers the handlers for what the server sends the client (before the handshake). */
  setup(client: Client): void;
  /** After every successful connection; `reconnected` is false the first time. */
  onUp(upstream: Upstream, reconnected: boolean): void;
  /** The connection went down (the session is still open). */
  onDown(reason: string): void;
  /** Every catalog fetched (the session logs its warnings: dead patterns, pins, drift). */
  onCatalog?(snapshot: CatalogSnapshot): void;
  /** A line for stderr; `fields` say what it is when the text alone does not (a server's own stderr). */
  log(line: string, fields?: LogFields): void;
}

export interface LinkOptions {
  server: McpServerConfig;
  connect: ConnectUpstream;
  /** The capabilities the downstream client declared that a server may use: roots, sampling, elicitation. */
  capabilities: () => ClientCapabilities;
  baseDir?: string;
  timeoutMs: number;
  /** How long the server may take to start (its own `startup_timeout` wins); default 60 s. */
  startupTimeoutMs?: number;
  /** The longest line accepted from a stdio server. */
  maxFrameBytes?: number;
  backoff: Backoff;
  hooks: LinkHooks;
  /** Where the connection's state, restarts and catalogs are counted (the gateway's `/metrics`). */
  metrics?: GatewayMetrics;
  /** How a remote server with token `auth` is reached (for the principal the link serves). */
  auth?: UpstreamAuth;
}

/**
 * The server cannot be had for this request: it is down (`E_UPSTREAM_UNAVAILABLE`), or its credentials
 * could not be had or were refused for the principal (`E_UPSTREAM_AUTH`, `E_UPSTREAM_AUTH_PRINCIPAL`).
 */
export class UpstreamUnavailable extends ToolgateError {
  declare readonly code: "E_UPSTREAM_UNAVAILABLE" | UpstreamAuthCode;

  constructor(message: string, code: "E_UPSTREAM_UNAVAILABLE" | UpstreamAuthCode = "E_UPSTREAM_UNAVAILABLE") {
    super(code, message);
  }
}

type LinkState =
  | { kind: "idle" }
  | { kind: "connecting"; done: Promise<Upstream> }
  | { kind: "up"; upstream: Upstream; catalog: ToolCatalog; since: number }
  | { kind: "down"; reason: string; retryAt: number }
  | { kind: "closed" };

export class UpstreamLink {
  private state: LinkState = { kind: "idle" };
  /** Consecutive failures (connection attempts that failed or connections that dropped before `stableMs`). */
  private failures = 0;
  private timer: NodeJS.Timeout | null = null;
  private connectedOnce = false;
  private lastKnown: CatalogSnapshot | null = null;
  private dropReason: string | null = null;
  private readonly watch: UpstreamWatch;

  constructor(private readonly options: LinkOptions) {
    this.watch = (options.metrics ?? NO_METRICS).upstream(options.server.name);
  }

  get name(): string {
    return this.options.server.name;
  }

  /** True while the first connection is being made (the server is starting; it was never up before). */
  get starting(): boolean {
    return this.state.kind === "connecting" && !this.connectedOnce;
  }

  /** The connected upstream, or null (never connects). */
  get current(): Upstream | null {
    return this.state.kind === "up" ? this.state.upstream : null;
  }

  /** The connection, opening it if needed; throws {@link UpstreamUnavailable} while the server is down. */
  ready(): Promise<Upstream> {
    switch (this.state.kind) {
      case "up":
        return Promise.resolve(this.state.upstream);
      case "connecting":
        return this.state.done;
      case "idle":
        return this.connect();
      case "down": {
        const wait = Math.max(0, this.state.retryAt - Date.now());
        return Promise.reject(
          new UpstreamUnavailable(
            `MCP server '${this.name}' is unavailable: ${this.state.reason}; toolgate retries in ${formatDelay(wait)}`,
          ),
        );
      }
      case "closed":
        return Promise.reject(new UpstreamUnavailable(`MCP server '${this.name}': the session is closed`));
    }
  }

  /** The server's current tool catalog (every page), refetched after `list_changed`. */
  async tools(): Promise<CatalogSnapshot> {
    await this.ready();
    const state = this.state;
    if (state.kind !== "up") return this.tools();
    await state.catalog.ensureFresh();
    const current = state.catalog.current();
    if (!current.ok) throw new ToolgateError("E_CATALOG_UNAVAILABLE", current.reason);
    this.lastKnown = current.snapshot;
    return current.snapshot;
  }

  /**
   * The catalog to decide with, or why there is none (the server is down, or its tools/list failed). Never
   * throws: a decision made without a catalog is a refusal with the reason.
   */
  async catalogState(): Promise<CatalogState> {
    try {
      return { ok: true, snapshot: await this.tools() };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = upstreamAuthCodeOf(error);
      return code === null ? { ok: false, reason } : { ok: false, reason, code };
    }
  }

  /** The last catalog fetched on any connection of this link; null before the first. */
  get lastKnownTools(): CatalogSnapshot | null {
    return this.lastKnown;
  }

  /**
   * A client asked for the tool list: fetch it from the server again (the server may have changed a tool
   * without saying so), so the list and the calls after it are decided on what the server has now.
   */
  relist(): void {
    if (this.state.kind === "up") this.state.catalog.markStale();
  }

  /** The server announced a new tool list: decisions wait for the refetch. */
  toolsChanged(): Promise<void> {
    if (this.state.kind !== "up") return Promise.resolve();
    this.state.catalog.markStale();
    return this.state.catalog.refresh();
  }

  /**
   * The transport failed under a request (a remote server that stopped answering, or lost our session): the
   * connection is dropped as if the server had closed it, so it is reopened with backoff instead of being
   * used again.
   */
  dropConnection(upstream: Upstream, reason: string): void {
    const state = this.state;
    if (state.kind !== "up" || state.upstream !== upstream) return;
    this.dropReason = reason;
    void upstream.close().catch(() => {});
  }

  async close(): Promise<void> {
    const state = this.state;
    this.state = { kind: "closed" };
    this.watch.closed();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (state.kind === "up") await state.upstream.close().catch(() => {});
    if (state.kind === "connecting") await state.done.then((u) => u.close()).catch(() => {});
  }

  private connect(): Promise<Upstream> {
    const { server, connect, hooks } = this.options;
    const attempt = connect(server, {
      timeoutMs: this.options.timeoutMs,
      ...(this.options.startupTimeoutMs === undefined
        ? {}
        : { startupTimeoutMs: this.options.startupTimeoutMs }),
      ...(this.options.baseDir === undefined ? {} : { baseDir: this.options.baseDir }),
      capabilities: this.options.capabilities(),
      clientInfo: { name: "toolgate", version: "0.1.0" },
      // Exact pins are checked against the schema text the server sent, as wrap does.
      recordToolsListText: true,
      ...(this.options.maxFrameBytes === undefined ? {} : { maxFrameBytes: this.options.maxFrameBytes }),
      ...(this.options.auth === undefined ? {} : { auth: this.options.auth }),
      setup: (client) => hooks.setup(client),
      onStderr: (text) => {
        for (const line of text.split("\n")) {
          if (line.trim() !== "")
            hooks.log(`[${server.name}] ${line}`, { code: "I_SERVER_STDERR", server: server.name });
        }
      },
    });
    const done = attempt.then(
      (upstream) => this.connected(upstream),
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (this.state.kind === "closed") throw error;
        const refused = upstreamAuthErrorIn(error);
        if (refused !== null) {
          // Not the server being down: no backoff. The next request tries again (a user's fresh token, a
          // restored grant), each with one exchange at most.
          this.state = { kind: "idle" };
          this.watch.state("failed", refused.message);
          hooks.log(refused.message, {
            code: refused.code,
            server: server.name,
          });
          throw new UpstreamUnavailable(refused.message, refused.code);
        }
        this.goDown(reason);
        throw new UpstreamUnavailable(reason);
      },
    );
    this.state = { kind: "connecting", done };
    this.watch.state("starting");
    return done;
  }

  private connected(upstream: Upstream): Upstream {
    if (this.state.kind === "closed") {
      void upstream.close().catch(() => {});
      throw new UpstreamUnavailable(`MCP server '${this.name}': the session is closed`);
    }
    const catalog = new ToolCatalog(
      (cursor) => upstream.listToolsPage(cursor),
      (line) => this.options.hooks.log(`[${this.name}] ${line}`),
      (snapshot) => {
        this.watch.catalog();
        this.options.hooks.onCatalog?.(snapshot);
      },
    );
    if (upstream.capabilities.tools === undefined) catalog.setNoTools();
    const state: LinkState = { kind: "up", upstream, catalog, since: Date.now() };
    this.state = state;
    this.watch.state("up");
    const reconnected = this.connectedOnce;
    this.connectedOnce = true;
    void upstream.closed.then(() => {
      if (this.state !== state) return;
      const lasted = Date.now() - state.since;
      if (lasted >= this.options.backoff.stableMs) this.failures = 0;
      const stderr = lastLine(upstream.stderrText());
      const reason =
        this.dropReason ?? `its connection closed${stderr === "" ? "" : ` (last stderr line: ${stderr})`}`;
      this.dropReason = null;
      this.goDown(reason);
    });
    this.options.hooks.onUp(upstream, reconnected);
    return upstream;
  }

  private goDown(reason: string): void {
    const { initialMs, maxMs } = this.options.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    this.state = { kind: "down", reason, retryAt: Date.now() + delay };
    this.watch.state("failed", reason);
    this.options.hooks.log(
      `MCP server '${this.name}' is down (${reason}); retry ${this.failures} in ${formatDelay(delay)}`,
      { code: "W_UPSTREAM_DOWN", server: this.name },
    );
    this.options.hooks.onDown(reason);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.state.kind !== "down") return;
      this.watch.restarted();
      this.connect().catch(() => {
        // Already recorded by goDown; the next retry is scheduled.
      });
    }, delay);
    this.timer.unref();
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${Math.ceil(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  const last = lines[lines.length - 1] ?? "";
  return last.length > 200 ? `${last.slice(0, 200)}…` : last;
}
