import { configReloadEvent, recordReload, reloadRefusedLine, shortDigest } from "../audit/reloadEvent.js";
import type { AuditSink } from "../audit/sink.js";
import type { LogFields } from "../engine/model/logFields.js";
import type { ClientContext, Gateway } from "../serve/gateway.js";
import { withCapturedErrors } from "./log/stderrLog.js";
import { readServeConfig, type ServeConfig } from "./serveConfig.js";
import type { ServeFlags } from "./serveFlags.js";
import type { ServePrincipals } from "./servePrincipals.js";
import type { ServeSelfTest } from "./selfTest/serveSelfTest.js";

export interface ServeReloadDeps {
  flags: ServeFlags;
  http: boolean;
  gateway: Gateway;
  audit: AuditSink | null;
  log(line: string, fields?: LogFields): void;
  /** Runs the self-test on the configuration read, before it is applied. */
  selfTest?: ServeSelfTest;
}

/**
 * One reload of serve's configuration (SIGHUP, or a watched file changed): read and checked exactly as at
 * start, its self-test run (when there is one); when valid and its cases pass, the gateway's policy and
 * every open session's context are replaced between requests (sessions and connections kept; a session
 * whose tokens-file entry is gone is closed); when not, every error is printed and the configuration in
 * force stays. One line and one audit event either way. Resolves
 * with the new configuration when it was applied (the listener then takes its tokens), else null.
 */
export async function reloadServe(deps: ServeReloadDeps, trigger: string): Promise<ServeConfig | null> {
  const oldDigest = deps.gateway.policyDigest;
  const { value, errors } = withCapturedErrors(() => readServeConfig(deps.flags, deps.http));
  // A configuration whose cases fail never goes live: the one in force stays.
  if (typeof value !== "number" && errors.length === 0 && deps.selfTest !== undefined) {
    errors.push(...(await deps.selfTest.run(value.loaded, "the configuration in force stays")));
  }
  if (typeof value === "number" || errors.length > 0) {
    if (errors.length === 0) errors.push("the configuration could not be read (see the lines above)");
    deps.log(
      reloadRefusedLine(
        trigger,
        errors.length,
        `the configuration in force (policy ${shortDigest(oldDigest)})`,
      ),
      { code: "E_RELOAD_REFUSED" },
    );
    recordReload(
      deps.audit,
      configReloadEvent({ session: "gateway", trigger, oldDigest, newDigest: null, errors }),
      deps.log,
    );
    return null;
  }
  const { kept, closed } = deps.gateway.reload(value.loaded.policy, currentClient(value.admitted));
  const newDigest = deps.gateway.policyDigest;
  deps.log(
    `configuration reloaded (${trigger}): policy ${shortDigest(oldDigest)} -> ${shortDigest(newDigest)}; ${kept} open ${kept === 1 ? "session" : "sessions"} decided anew` +
      (closed === 0 ? "" : `, ${closed} closed (their tokens-file entry is gone or changed)`),
    { code: "I_CONFIG_RELOAD" },
  );
  recordReload(
    deps.audit,
    configReloadEvent({ session: "gateway", trigger, oldDigest, newDigest }),
    deps.log,
  );
  return value;
}

/**
 * What an open session's client is after the reload: its entry by name, if it is still there and still
 * grants /mcp with the same token (static tokens) or to the same principal (OAuth); else null (closed).
 */
function currentClient(admitted: ServePrincipals): (was: ClientContext) => ClientContext | null {
  return (was) => {
    const entry = admitted.clients.find((c) => c.client === was.client);
    if (entry !== undefined) {
      if (was.digest !== undefined && (entry.digest === undefined || !entry.digest.equals(was.digest)))
        return null;
      return entry.principal.key === was.principal.key ? entry : null;
    }
    const oauth = admitted.oauth.find((o) => o.label === was.client && o.rights.mcp);
    return oauth === undefined ? null : oauth.context(was.principal);
  };
}
