import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LiveFeed } from "../audit/liveFeed.js";
import { fanOutSink, type AuditSink } from "../audit/sink.js";
import { tokenDigest } from "../config/tokensFile.js";
import { CatalogCache } from "../dashboard/catalogCache.js";
import { dashboardHandler, type DashboardPages } from "../dashboard/server.js";
import { DashboardSignIn } from "../auth/dashboardSignIn.js";
import type { AuthOutcome } from "../auth/resourceServer.js";
import type { Operator } from "../engine/model/principal.js";
import type { OperatorToken } from "./servePrincipals.js";
import { ApprovalDesk } from "../session/approvalDesk.js";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { policyLocation } from "./contextOptions.js";
import { catalogFetcher } from "./dashboardCatalogs.js";
import type { StatusSource } from "../ops/gatewayStatus.js";

/**
 * `serve --http --dashboard`: the dashboard's pages on serve's own listener, at /ui/. Operators sign in:
 * with a static token of an entry whose `use:` lists dashboard (exchanged once for a session cookie), or
 * with the identity provider as a `claims:` entry that does. An MCP client's token never signs in. The
 * live view follows serve's decisions, and calls under approval_required from clients that cannot ask
 * their person wait on the approvals page for an approver (never the principal that made the call).
 */
export interface ServeDashboard {
  live: LiveFeed;
  desk: ApprovalDesk;
  /** serve's audit sink with the live view added. */
  audit: AuditSink;
  ui(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Offers signing in with the identity provider (OAuth), as the dashboard's public client. */
  offerSignIn(provider: {
    issuer: string;
    clientId: string;
    resource: () => string;
    scopes: readonly string[];
    authenticate: (token: string) => Promise<AuthOutcome<Operator>>;
  }): void;
}

export function serveDashboard(options: {
  audit: AuditSink | null;
  auditLog: string | undefined;
  dir: string;
  /** The context serve decides in (--role, --agent, …): the what-if view replays under it. */
  selection: ContextSelection;
  policyFlag: string | undefined;
  /** Static tokens of operators (entries with use: [dashboard]). */
  operators: readonly OperatorToken[];
  /** Static tokens of MCP clients that may not sign in: refused with why, not as unknown. */
  clientTokens: readonly Buffer[];
  /** The gateway's status (its metrics' counters) for the status panel. */
  status?: StatusSource;
  log: (line: string) => void;
}): ServeDashboard {
  const live = new LiveFeed();
  const desk = new ApprovalDesk();
  const signIn = (presented: string): Operator | { refused: string } => {
    const digest = tokenDigest(presented);
    let who: Operator | null = null;
    let client = false;
    // Every token compared, in constant time: the answer's timing says nothing about which one matched.
    for (const token of options.operators) {
      if (timingSafeEqual(token.digest, digest)) who = { principal: token.principal, rights: token.rights };
    }
    for (const token of options.clientTokens) if (timingSafeEqual(token, digest)) client = true;
    if (who !== null) return who;
    return {
      refused: client
        ? "That is an MCP client's token: the dashboard admits operators (a tokens-file entry with use: [dashboard])."
        : "That is not a token of this dashboard's operators.",
    };
  };
  const pages: DashboardPages = {
    signIn,
    dir: options.dir,
    selection: options.selection,
    auditLogs: options.auditLog === undefined ? [] : [options.auditLog],
    locatePolicy: (config: ConfigDir) => policyLocation(config, options.policyFlag),
    catalogs: new CatalogCache(catalogFetcher(DEFAULT_UPSTREAM_TIMEOUT_MS, options.log), 30_000),
    log: (line) => options.log(`dashboard: ${line}`),
    live,
    desk,
    ...(options.status === undefined ? {} : { status: options.status }),
  };
  const ui = dashboardHandler(pages, () => null);
  return {
    live,
    desk,
    audit: options.audit === null ? live : fanOutSink([options.audit, live]),
    ui,
    offerSignIn(provider) {
      const flow = new DashboardSignIn({
        issuer: provider.issuer,
        clientId: provider.clientId,
        resource: provider.resource,
        ...(provider.scopes.length === 0 ? {} : { scope: provider.scopes.join(" ") }),
      });
      pages.oauthSignIn = {
        label: new URL(provider.issuer).host,
        start: (redirectUri) => flow.start(redirectUri),
        async finish(params, nonce, redirectUri) {
          const done = await flow.finish(params, nonce, redirectUri);
          if ("problem" in done) return done;
          // The token is checked as any access token of this gateway: issuer, audience, scopes, principal.
          const admitted = await provider.authenticate(done.token);
          return admitted.ok ? { who: admitted.identity } : { problem: admitted.description };
        },
      };
    },
  };
}
