import type { Client } from "@modelcontextprotocol/client";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import type { Upstream } from "../upstream/upstream.js";
import type { LinkHooks, UpstreamLink } from "../upstream/upstreamLink.js";
import type { CatalogSnapshot } from "../session/toolCatalog.js";
import { RelayedError } from "./relay.js";

/**
 * Upstream servers shared between gateway sessions. A stdio server is started once per principal (the
 * token) and shared by that principal's sessions, by default; once per session when its mcp.json entry says
 * `"share": "session"` (servers that keep per-client state); once for every client with `"share": "all"`.
 * 10 sessions over 3 servers are then 3 processes, not 30.
 *
 * What a shared server sends goes only to the session it belongs to: its requests (sampling, elicitation,
 * roots) and its messages about a request (log messages, elicitation completion) to the one session with a
 * request in flight to it; when that cannot be told (none or several), a request is refused with an error
 * and a message is dropped (with a line on stderr), never sent to a client it may not be for. A resource
 * update goes to the sessions that subscribed to that resource, a list change to every session (each
 * decides again what its client sees). A server used by one session only is that session's, as without
 * sharing.
 */

/** What a session is to a shared server: the handlers of its own link, plus how busy it is. */
export interface LinkMember {
  /** Requests this session has in flight to `server` now. */
  inFlight(server: string): number;
  serverRequest(
    server: string,
    request: { method: string; params?: unknown },
    ctx: RequestContext,
  ): Promise<unknown>;
  serverNotification(
    server: string,
    notification: { method: string; params?: Record<string, unknown> },
  ): Promise<void>;
  catalogFetched(server: string, snapshot: CatalogSnapshot): void;
  upstreamUp(server: string, upstream: Upstream, reconnected: boolean): void;
  /** Whether this session subscribed to `uri` (the server's own) of `server`. */
  subscribed(server: string, uri: string): boolean;
}

/** Notifications every member hears: each session decides again what its client sees. */
const TO_EVERY_MEMBER = new Set([
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
]);

type RequestContext = Parameters<NonNullable<Client["fallbackRequestHandler"]>>[1];

interface Entry {
  link: UpstreamLink;
  members: Set<LinkMember>;
}

/** How a session's server is shared: the key of its pool entry. */
export function shareKey(config: McpServerConfig, principal: string, sessionId: string): string {
  // A connection carrying a user's own token is never everyone's (mcp.json refuses "all" for it already).
  const perUser = config.transport !== "stdio" && config.auth?.type === "token_exchange";
  const share = config.share === "all" && perUser ? "principal" : (config.share ?? "principal");
  const owner =
    share === "all" ? "*" : share === "session" ? `session:${sessionId}` : `principal:${principal}`;
  return JSON.stringify([owner, config.name]);
}

export class UpstreamPool {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** Live upstream links (for tests and benchmarks: one per shared server). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The link for `key`, created with `make` when it is the first member; `make` gets the hooks that
   * dispatch to the members.
   */
  attach(
    key: string,
    server: string,
    member: LinkMember,
    make: (hooks: Omit<LinkHooks, "log">) => UpstreamLink,
  ): UpstreamLink {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const members = new Set<LinkMember>();
      entry = { link: make(dispatch(server, members, this.log)), members };
      this.entries.set(key, entry);
    }
    entry.members.add(member);
    return entry.link;
  }

  /** Whether a member other than `member` of the link at `key` subscribed to `uri` of `server`. */
  othersSubscribed(key: string, member: LinkMember, server: string, uri: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    for (const m of entry.members) if (m !== member && m.subscribed(server, uri)) return true;
    return false;
  }

  /** Leaves the link; the last member to leave closes it (and stops the server). */
  async detach(key: string, member: LinkMember): Promise<void> {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.members.delete(member);
    if (entry.members.size > 0) return;
    this.entries.delete(key);
    await entry.link.close();
  }
}

function dispatch(
  server: string,
  members: Set<LinkMember>,
  log: (line: string) => void,
): Omit<LinkHooks, "log"> {
  /** The member a message of the server is for: the only member, else the only busy one, else none. */
  const owner = (): { member: LinkMember } | { busy: number } => {
    if (members.size === 1) return { member: [...members][0]! };
    const busy = [...members].filter((m) => m.inFlight(server) > 0);
    return busy.length === 1 ? { member: busy[0]! } : { busy: busy.length };
  };
  return {
    setup(client: Client) {
      client.fallbackRequestHandler = async (request, ctx) => {
        const found = owner();
        if ("member" in found) return (await found.member.serverRequest(server, request, ctx)) as never;
        throw new RelayedError(
          -32603,
          `toolgate cannot tell which client ${request.method} of MCP server '${server}' is for (${found.busy === 0 ? "no client has a request in flight to it" : `${found.busy} clients have requests in flight to it`}); refused rather than sent to the wrong one`,
        );
      };
      client.fallbackNotificationHandler = async (notification) => {
        const message = notification as { method: string; params?: Record<string, unknown> };
        let to: LinkMember[];
        if (TO_EVERY_MEMBER.has(message.method)) {
          // A catalog change is the server's, not one session's: every member hears it (the members'
          // refetches of the one catalog join into one).
          to = [...members];
        } else if (message.method === "notifications/resources/updated") {
          const uri = message.params?.uri;
          to = typeof uri === "string" ? [...members].filter((m) => m.subscribed(server, uri)) : [];
        } else {
          const found = owner();
          if ("member" in found) to = [found.member];
          else {
            to = [];
            log(
              `dropped ${message.method} of shared MCP server '${server}': ${found.busy === 0 ? "no client has a request in flight to it" : `${found.busy} clients have requests in flight to it`}, so who it is for cannot be told`,
            );
          }
        }
        await Promise.all(to.map((m) => m.serverNotification(server, message)));
      };
    },
    onUp(upstream, reconnected) {
      for (const m of members) m.upstreamUp(server, upstream, reconnected);
    },
    onDown() {},
    onCatalog(snapshot) {
      for (const m of members) m.catalogFetched(server, snapshot);
    },
  };
}
