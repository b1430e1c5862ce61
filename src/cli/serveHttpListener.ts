import { createHash } from "node:crypto";
import type { AuditSink } from "../audit/sink.js";
import { closeAuditSink } from "../audit/sink.js";
import type { GatewaySession } from "../serve/gatewaySession.js";
import type { SharedState } from "../state/sharedState.js";
import { startHttpServer } from "../transports/httpServer.js";
import type { SessionDirectory } from "../transports/replicaForward.js";
import { signedDirectory } from "../transports/replicaDirectory.js";
import { fail, type ClientContext, type ServeFlags } from "./serveFlags.js";
import type { ServeDashboard } from "./serveDashboard.js";
import { oauthDoors } from "./serveOAuth.js";
import type { SubjectTokens } from "../auth/subjectTokens.js";
import type { ServePrincipals } from "./servePrincipals.js";
import { watchForReload } from "./reloadWatch.js";
import { onStopSignals, type ServeLifecycle } from "./serveLifecycle.js";

/**
 * `serve --http`: the listener with its tokens, OAuth, replica directory and dashboard; runs until a signal
 * (resolves null), or the exit status when it cannot listen.
 */
export async function serveHttp(
  flags: ServeFlags,
  admitted: ServePrincipals,
  newSession: (c: ClientContext, id: string, persistent?: boolean) => GatewaySession,
  audit: AuditSink | null,
  log: (line: string) => void,
  state: SharedState,
  ui: ServeDashboard | null,
  lifecycle: ServeLifecycle,
  subjectTokens?: SubjectTokens,
): Promise<number | null> {
  if (flags.announce !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(flags.announce)) {
    return fail(
      `--announce must be this replica's base URL, such as http://10.0.0.5:8931, not '${flags.announce}'`,
    );
  }
  // Replicas find each other's 2025-era sessions through the shared state; one process needs no directory.
  let self = flags.announce?.replace(/\/$/, "") ?? "";
  // Their records and hops are signed with the state secret (openState requires it beside Redis).
  const stateSecret = process.env.TOOLGATE_STATE_SECRET ?? "";
  if (state.sharedByReplicas && stateSecret === "") {
    return fail("replicas need TOOLGATE_STATE_SECRET (the same on every replica) to trust each other");
  }
  const directory: SessionDirectory | undefined = state.sharedByReplicas
    ? signedDirectory(state, () => self, stateSecret, log)
    : undefined;
  let publicUrl = "";
  const doors =
    flags.oauthIssuer.length === 0
      ? undefined
      : oauthDoors(
          {
            issuers: flags.oauthIssuer,
            audience: () => flags.oauthAudience ?? publicUrl,
            scopes: flags.oauthScope,
            ...(subjectTokens === undefined ? {} : { subjectTokens }),
          },
          admitted.oauth,
        );
  const oauth = doors?.mcp;
  // The dashboard's operators can sign in with the identity provider too (as its public client).
  if (ui !== null && doors !== undefined && flags.dashboardClientId !== undefined) {
    ui.offerSignIn({
      issuer: flags.oauthIssuer[0]!,
      clientId: flags.dashboardClientId,
      resource: () => flags.oauthAudience ?? publicUrl,
      scopes: flags.oauthScope,
      authenticate: (token) => doors.dashboard(token),
    });
  }
  const { identities, otherDoorTokens } = staticTokens(admitted);
  let server;
  try {
    server = await startHttpServer({
      host: flags.host,
      port: flags.http!,
      tokens: identities,
      otherDoorTokens,
      allowedOrigins: flags.allowedOrigin,
      allowedHosts: flags.allowedHost,
      maxBodyBytes: flags.maxBodyBytes,
      maxSessions: flags.maxSessions,
      ...(flags.maxSessionsPerToken === undefined ? {} : { maxSessionsPerToken: flags.maxSessionsPerToken }),
      idleTimeoutMs: flags.sessionIdleTimeout * 1000,
      createSession: (identity, sessionId) => newSession(identity.context, sessionId),
      // One gateway session per principal serves its requests of the modern era.
      createPrincipal: (identity) =>
        newSession(
          identity.context,
          `modern-${createHash("sha256").update(identity.principal.key).digest("hex").slice(0, 16)}`,
          true,
        ),
      ...(directory === undefined ? {} : { directory }),
      ...(ui === null ? {} : { ui: ui.ui }),
      ...(oauth === undefined ? {} : { oauth }),
      ...(lifecycle.ops === null ? {} : { ops: lifecycle.ops.routes }),
      onAuthRefused: (refusal) =>
        audit?.write({
          event: "request",
          time: new Date().toISOString(),
          session: "-",
          policy_digest: null,
          request_id: null,
          client: "(not authenticated)",
          method: refusal.method,
          decision: "deny",
          code: refusal.code,
          rule: null,
          reason: refusal.reason,
        }),
      log,
    });
  } catch (error) {
    return fail(
      `cannot listen on ${flags.host}:${flags.http}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (self === "") self = new URL(server.url).origin;
  publicUrl = server.url;
  if (flags.oauthIssuer.length > 0) {
    log(`OAuth: access tokens of ${flags.oauthIssuer.join(", ")} for ${flags.oauthAudience ?? publicUrl}`);
  }
  log(`serving MCP (${flags.mode} mode) on ${server.url}`);
  if (ui !== null)
    log(`dashboard on ${new URL(server.url).origin}/ui/ (sign in with a token of this gateway)`);
  if (!["127.0.0.1", "::1", "localhost"].includes(flags.host)) {
    log(
      `${flags.host} is not a loopback address: anyone who can reach it and holds a token can use this gateway; ` +
        `clients must send a Host header naming ${flags.host} or an --allowed-host`,
    );
  }
  const running = server;
  const { ops } = lifecycle;
  const watcher = watchForReload({
    paths: lifecycle.watch,
    log,
    reload: async (trigger) => {
      const next = await lifecycle.reload(trigger);
      if (next === null) return;
      const tokens = staticTokens(next.admitted);
      running.replaceTokens(tokens.identities, tokens.otherDoorTokens);
      doors?.replaceEntries(next.admitted.oauth);
    },
  });
  onStopSignals(
    log,
    lifecycle.drainMs,
    (ms) => {
      ops?.readiness.setDraining();
      return running.drain(ms);
    },
    async () => {
      watcher.close();
      await running.close();
      await ops?.close();
      await closeAuditSink(audit);
      await state.close();
      process.exit(0);
    },
  );
  return null;
}

/** The static tokens /mcp admits, and those of operators, which it answers 403 (they may not call tools). */
function staticTokens(admitted: ServePrincipals) {
  const identities = admitted.clients.map((c) => ({ digest: c.digest!, principal: c.principal, context: c }));
  const otherDoorTokens = admitted.operators.filter(
    (o) => !admitted.clients.some((c) => c.principal.key === o.principal.key),
  );
  return { identities, otherDoorTokens };
}
