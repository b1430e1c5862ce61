import type { SessionCounters } from "../engine/model/decision.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { formatDiagnostic, type Diagnostic } from "../engine/model/diagnostics.js";
import type { Principal } from "../engine/model/principal.js";
import type { Settled } from "../state/settled.js";
import { GatewaySession, type SessionOptions } from "./gatewaySession.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { buildSessionContext } from "./sessionContext.js";

/** One MCP client's context: who it is (its principal), the entry's name, and the context the entry gives. */
export interface ClientContext {
  /** The tokens-file entry's name (`token` for --token, `stdio`): the audit log's `client`. */
  client: string;
  /** Who it is: limits, sessions, shared servers, request states, approvals and the audit log key on it. */
  principal: Principal;
  selection: ContextSelection;
  config: ConfigDir;
  /** Static tokens: SHA-256 of the token. */
  digest?: Buffer;
}

/** What every session of one gateway shares: the policy, the settings, the stores and the sinks. */
export type GatewaySettings = Omit<
  SessionOptions,
  "context" | "sessionId" | "principal" | "counter" | "persistent"
> & {
  policy: ActivePolicy | null;
  /** Counts one request of a principal (limits count per principal, across its sessions and replicas). */
  count(principalKey: string, isToolCall: boolean): Settled<SessionCounters>;
};

/**
 * A gateway built from a configuration: the library's way to serve, which the CLI only parses flags and
 * files for. Each client session gets its context from the client's entry, keyed on its principal: limits
 * count per principal, and its sessions share one connection to each server (unless mcp.json's `share`
 * says otherwise).
 */
export class Gateway {
  /** The sessions still open, with the client each serves: a reload decides their context again. */
  private readonly live = new Map<GatewaySession, ClientContext>();

  constructor(private readonly settings: GatewaySettings) {}

  /** The digest of the policy in force (`null`: none). */
  get policyDigest(): string | null {
    return this.settings.policy?.compiled.policy.digest ?? null;
  }

  /**
   * A reload: `policy` decides from the next request on, for new sessions and open ones alike. `current`
   * says what each open session's client is now (its tokens-file entry read again); a session whose client
   * is gone (its entry removed, its token changed) is closed, never left running on the old grant. Every
   * context must have been checked (brokenContext) before: one that no longer builds closes its session.
   */
  reload(
    policy: ActivePolicy | null,
    current: (was: ClientContext) => ClientContext | null,
  ): { kept: number; closed: number } {
    this.settings.policy = policy;
    let kept = 0;
    let closed = 0;
    for (const [session, was] of [...this.live]) {
      if (session.ended) {
        this.live.delete(session);
        continue;
      }
      const now = current(was);
      const built = now === null ? null : buildSessionContext(now.config, now.selection, policy, now.client);
      if (now === null || built === null || !built.ok) {
        this.live.delete(session);
        void session.close();
        closed++;
        continue;
      }
      this.live.set(session, now);
      session.reconfigure(built.context);
      kept++;
    }
    return { kept, closed };
  }

  /** A new session of `client` (`persistent`: an HTTP session kept across replicas). */
  session(client: ClientContext, sessionId: string, persistent = false): GatewaySession {
    for (const s of this.live.keys()) if (s.ended) this.live.delete(s);
    const built = buildSessionContext(client.config, client.selection, this.settings.policy, client.client);
    if (!built.ok) throw new Error(built.diagnostics.map(formatDiagnostic).join("; "));
    const { policy: _policy, count, ...shared } = this.settings;
    const session = new GatewaySession({
      ...shared,
      context: built.context,
      sessionId,
      principal: client.principal,
      counter: { count: (isToolCall) => count(client.principal.key, isToolCall) },
      persistent,
    });
    this.live.set(session, client);
    return session;
  }
}

/** Every context must build before anything starts: the first that does not, with why. */
export function brokenContext(
  clients: readonly ClientContext[],
  policy: ActivePolicy | null,
): { client: string; diagnostics: Diagnostic[] } | null {
  for (const c of clients) {
    const built = buildSessionContext(c.config, c.selection, policy, c.client);
    if (!built.ok) return { client: c.client, diagnostics: built.diagnostics };
  }
  return null;
}
