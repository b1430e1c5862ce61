import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LiveFeed } from "../audit/liveFeed.js";
import { fanOutSink, type AuditSink } from "../audit/sink.js";
import { tokenDigest } from "../config/tokensFile.js";
import { CatalogCache } from "../dashboard/catalogCache.js";
import { dashboardHandler, type DashboardPages } from "../dashboard/server.js";
import { DashboardSignIn } from "../auth/dashboardSignIn.js";
import type { AuthOutcome } from "../auth/resourceServer.js";
import { ApprovalDesk } from "../session/approvalDesk.js";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import type { ConfigDir } from "../engine/model/configDir.js";
import { policyLocation } from "./contextOptions.js";
import { catalogFetcher } from "./dashboardCatalogs.js";

/**
 * `serve --http --dashboard`: the dashboard's pages on serve's own listener, at /ui/. People sign in with
 * one of serve's static tokens (exchanged once for a session cookie; the page records the token's name as
 * who answered an approval). The live view follows serve's decisions, and calls under approval_required
 * from clients that cannot ask their person wait on the approvals page.
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
    authenticate: (token: string) => Promise<AuthOutcome<{ label: string }>>;
  }): void;
}

export function serveDashboard(options: {
  audit: AuditSink | null;
  auditLog: string | undefined;
  dir: string;
  policyFlag: string | undefined;
  tokens: readonly { digest: Buffer; label: string }[];
  log: (line: string) => void;
}): ServeDashboard {
  const live = new LiveFeed();
  const desk = new ApprovalDesk();
  const signIn = (presented: string): string | null => {
    const digest = tokenDigest(presented);
    let who: string | null = null;
    // Every token compared, in constant time: the answer's timing says nothing about which one matched.
    for (const token of options.tokens) if (timingSafeEqual(token.digest, digest)) who = token.label;
    return who;
  };
  const pages: DashboardPages = {
    signIn,
    dir: options.dir,
    auditLogs: options.auditLog === undefined ? [] : [options.auditLog],
    locatePolicy: (config: ConfigDir) => policyLocation(config, options.policyFlag),
    catalogs: new CatalogCache(catalogFetcher(DEFAULT_UPSTREAM_TIMEOUT_MS, options.log), 30_000),
    log: (line) => options.log(`dashboard: ${line}`),
    live,
    desk,
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
          return admitted.ok ? { who: admitted.identity.label } : { problem: admitted.description };
        },
      };
    },
  };
}
