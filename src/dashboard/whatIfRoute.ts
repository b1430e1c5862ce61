import type { ServerResponse } from "node:http";
import { loadConfigDir } from "../config/configDir.js";
import type { ContextSelection } from "../engine/model/configDir.js";
import { printable } from "../engine/text/printable.js";
import { chooseCandidate, listCandidates } from "./candidates.js";
import type { LocatePolicy } from "./contextSource.js";
import { page } from "./layout.js";
import { send } from "./respond.js";
import type { WhatIfOutcome, WhatIfRunner } from "./whatIf.js";
import { whatIfBody } from "./whatIfPage.js";

/**
 * GET /ui/whatif[?candidate=NAME]: the candidates listed afresh, the one named (by its name in that list,
 * nothing else: E_DASHBOARD_CANDIDATE, 400) replayed, and the page sent. A replay already running is not
 * joined: E_DASHBOARD_BUSY, 503, try again.
 */
export async function whatIfRoute(
  res: ServerResponse,
  url: URL,
  csrf: string,
  options: {
    dir: string;
    auditLogs: readonly string[];
    locatePolicy: LocatePolicy;
    selection: ContextSelection;
    runner: WhatIfRunner;
    log: (line: string) => void;
  },
): Promise<void> {
  const { config } = loadConfigDir(options.dir, options.selection);
  const inForce = options.locatePolicy(config);
  const listing = listCandidates(options.dir, inForce?.path ?? null);
  const requested = url.searchParams.get("candidate");
  let status = 200;
  let refusal: { code: string; why: string } | null = null;
  let outcome: WhatIfOutcome | null = null;
  const headers: Record<string, string> = {};
  if (requested !== null) {
    const chosen = chooseCandidate(listing, requested);
    if (!chosen.ok) {
      status = 400;
      refusal = { code: "E_DASHBOARD_CANDIDATE", why: chosen.why };
      // The name is the request's: made printable, so it cannot forge a line of the gateway's log.
      const shown = printable(requested.length > 200 ? `${requested.slice(0, 200)}…` : requested);
      options.log(`E_DASHBOARD_CANDIDATE: refused the what-if candidate '${shown}': ${chosen.why}`);
    } else if (options.auditLogs.length > 0) {
      const ran = await options.runner.run({
        dir: options.dir,
        selection: options.selection,
        auditLogs: options.auditLogs,
        candidate: chosen,
      });
      if (ran === "busy") {
        status = 503;
        headers["Retry-After"] = "5";
        refusal = {
          code: "E_DASHBOARD_BUSY",
          why: "another what-if replay is running in this dashboard: reload this page in a few seconds",
        };
      } else outcome = ran;
    }
  }
  const body = whatIfBody({
    dir: options.dir,
    inForce: inForce?.shown ?? null,
    auditLogs: options.auditLogs,
    listing,
    chosen: requested,
    refusal,
    outcome,
  });
  send(res, status, page("What if", "whatif", csrf, body), headers);
}
