import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyLog, parseAuditQuery, searchEvents } from "./auditLogs.js";
import { auditBody, SEARCH_LIMIT } from "./auditPage.js";
import type { CatalogCache } from "./catalogCache.js";
import { directoryNames, loadView, nodesOf, pickContext, type LocatePolicy } from "./contextSource.js";
import {
  acceptedHosts,
  hostAccepted,
  parseCookies,
  parseForm,
  sameOriginPost,
  secretsEqual,
} from "./guard.js";
import { queryString } from "./html.js";
import { loginPage, page, problemPage } from "./layout.js";
import { buildMatrix, type Matrix } from "./matrix.js";
import { matrixBody } from "./matrixPage.js";
import { BodyTooLarge, clearCookie, cookie, readBody, redirect, send } from "./respond.js";
import {
  csrfValid,
  DEFAULT_SESSION_LIMITS,
  randomToken,
  SessionStore,
  type SessionLimits,
} from "./sessions.js";
import { STYLESHEET } from "./styles.js";
import type { LiveFeed } from "../audit/liveFeed.js";
import type { ApprovalDesk } from "../session/approvalDesk.js";
import { liveBody, liveEvents } from "./livePage.js";
import { LIVE_SCRIPT } from "./liveScript.js";
import { answerApproval, approvalsBody } from "./approvalsPage.js";
import { statusBody } from "./statusPage.js";
import type { StatusSource } from "../ops/gatewayStatus.js";
import { oauthRoute, type OAuthSignIn } from "./oauthRoutes.js";
import type { ContextSelection } from "../engine/model/configDir.js";
import type { Operator } from "../engine/model/principal.js";
import { WhatIfRunner } from "./whatIf.js";
import { whatIfRoute } from "./whatIfRoute.js";

/**
 * The dashboard's HTTP server (node:http, server-rendered pages, no script). Every request passes, in order:
 * the Host check; for a POST the same-origin check; the session cookie (else 401 and the sign-in page, with
 * nothing of the configuration or the logs); for a POST the session's CSRF token. Only GET pages read, and
 * only POSTs change anything (sign in, sign out, drop the cached catalogs).
 */

export interface DashboardOptions extends DashboardPages {
  host: string;
  /** 0: any free port. */
  port: number;
}

/** What the pages show and who may see them; `serve --http --dashboard` mounts the same pages. */
export interface DashboardPages {
  /**
   * Who a sign-in token belongs to and what they may do, or why it does not sign in (a wrong token, or a
   * token of an MCP client, which never opens the dashboard); compared in constant time.
   */
  signIn: (token: string) => Operator | { refused: string };
  dir: string;
  auditLogs: readonly string[];
  locatePolicy: LocatePolicy;
  catalogs: CatalogCache;
  log: (line: string) => void;
  sessionLimits?: SessionLimits;
  /** serve: decisions as they happen (the live view). */
  live?: LiveFeed;
  /** serve: calls waiting for a person's approval (the approvals view). */
  desk?: ApprovalDesk;
  /** serve with OAuth: signing in with the identity provider, beside the token. */
  oauthSignIn?: OAuthSignIn;
  /** serve: the gateway's status, from its metrics (the status panel). */
  status?: StatusSource;
  /** The context the gateway decides in (serve's --role, --agent, …), for the what-if view; default none. */
  selection?: ContextSelection;
}

export interface RunningDashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

const SESSION_COOKIE = "tg_dashboard";
const LOGIN_COOKIE = "tg_login";
const MAX_FORM_BYTES = 8192;

/**
 * The pages' request handler. `hosts`: the Host names accepted (the standalone dashboard's; `null` when the
 * server mounting the pages has checked Host and Origin already, as serve does).
 */
export function dashboardHandler(
  options: DashboardPages,
  hosts: () => ReadonlySet<string> | null,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const sessions = new SessionStore(options.sessionLimits ?? DEFAULT_SESSION_LIMITS);
  const whatIf = new WhatIfRunner();

  const forbidden = (res: ServerResponse, why: string): void => {
    options.log(`refused a request: ${why}`);
    send(res, 403, problemPage("Refused", "E_DASHBOARD_FORBIDDEN", why));
  };

  /** 401 and the sign-in page: the whole answer to any request without a session. */
  const signIn = (
    res: ServerResponse,
    status: number,
    message: string | null,
    cookies: Map<string, string>,
  ): void => {
    // The value already set is kept, so two open sign-in pages both work.
    const known = cookies.get(LOGIN_COOKIE);
    const nonce = known !== undefined && /^[A-Za-z0-9_-]{43}$/.test(known) ? known : randomToken();
    send(res, status, loginPage(nonce, message, options.oauthSignIn?.label ?? null), {
      "Set-Cookie": cookie(LOGIN_COOKIE, nonce, { maxAgeSeconds: 3600 }),
    });
  };

  const login = async (
    req: IncomingMessage,
    res: ServerResponse,
    cookies: Map<string, string>,
  ): Promise<void> => {
    const form = parseForm(await readBody(req, MAX_FORM_BYTES));
    // No session exists yet to hold a CSRF token: the form carries the value of a cookie set with it.
    const nonce = cookies.get(LOGIN_COOKIE);
    const presented = form.get("csrf");
    if (nonce === undefined || nonce === "" || presented === null || !secretsEqual(presented, nonce)) {
      return forbidden(res, "the sign-in form's CSRF token is missing or stale: reload the sign-in page");
    }
    const who = options.signIn(form.get("token") ?? "");
    if ("refused" in who) {
      options.log(`E_DASHBOARD_AUTH: a sign-in refused: ${who.refused}`);
      return signIn(res, 401, who.refused, cookies);
    }
    options.log(`${who.principal.name} signed in (${who.rights.dashboard ?? "viewer"})`);
    const { id } = sessions.create(who);
    redirect(res, "/ui/", { "Set-Cookie": [cookie(SESSION_COOKIE, id), clearCookie(LOGIN_COOKIE)] });
  };

  const matrixPage = async (res: ServerResponse, url: URL, csrf: string): Promise<void> => {
    const names = directoryNames(options.dir);
    const picked = pickContext(url.searchParams, names);
    const view = loadView(options.dir, picked.selection, options.locatePolicy);
    let matrix: Matrix | null = null;
    let failure: string | null = null;
    try {
      if (view.usable)
        matrix = await buildMatrix(view.config, picked.selection, view.policy, options.catalogs);
    } catch (error) {
      // What `info` reports and exits 2 for (a selection the engine refuses), shown instead of a 500.
      const e = error as { code?: unknown; message?: unknown };
      failure = `${typeof e.code === "string" ? e.code : "E_INTERNAL"}: ${String(e.message ?? error)}`;
    }
    const body = matrixBody({
      names,
      nodes: nodesOf(view.config, picked.selection),
      selection: picked.selection,
      unknown: picked.unknown,
      diagnostics: view.diagnostics,
      failure,
      matrix,
      policy: view.policy,
      query: url.searchParams,
      csrf,
    });
    send(res, 200, page("Verdict matrix", "matrix", csrf, body));
  };

  const auditPage = (res: ServerResponse, url: URL, csrf: string): void => {
    const logs = options.auditLogs.map((file, i) => verifyLog(file, i));
    const { query, problems } = parseAuditQuery(url.searchParams, logs.length);
    const result = problems.length > 0 ? null : searchEvents(options.auditLogs, query, SEARCH_LIMIT);
    const body = auditBody({ logs, params: url.searchParams, query, problems, result });
    send(res, 200, page("Audit", "audit", csrf, body));
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const accepted = hosts();
    if (accepted !== null && !hostAccepted(req.headers.host, accepted)) {
      return forbidden(res, "the Host header does not name this dashboard (DNS rebinding?)");
    }
    const url = new URL(req.url ?? "/", "http://dashboard.invalid");
    const path = url.pathname;
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD" && method !== "POST") {
      return send(res, 405, problemPage("Not allowed", null, "only GET and POST are used"), {
        Allow: "GET, HEAD, POST",
      });
    }
    if (path === "/ui/static/dashboard.css") {
      return send(res, 200, STYLESHEET, { "Cache-Control": "max-age=300" }, "text/css; charset=utf-8");
    }
    if (path === "/ui/static/live.js") {
      return send(
        res,
        200,
        LIVE_SCRIPT,
        { "Cache-Control": "max-age=300" },
        "text/javascript; charset=utf-8",
      );
    }
    if (path === "/" || path === "/ui") return redirect(res, "/ui/");
    if (!path.startsWith("/ui/")) return send(res, 404, problemPage("Not found", null, "no such page"));
    if (method === "POST" && !sameOriginPost(req.headers, accepted ?? new Set([req.headers.host ?? ""]))) {
      return forbidden(res, "a POST from another origin (or with neither Origin nor Referer)");
    }
    const cookies = parseCookies(req.headers.cookie);
    const opened = (who: Operator): string => cookie(SESSION_COOKIE, sessions.create(who).id);
    if (await oauthRoute(path, url, req, res, cookies, options.oauthSignIn, opened)) return;
    if (path === "/ui/login") {
      if (method === "POST") return login(req, res, cookies);
      if (sessions.get(cookies.get(SESSION_COOKIE)) !== null) return redirect(res, "/ui/");
      return signIn(res, 200, null, cookies);
    }
    // A request another site (or another origin of this site) made the browser send carries the cookie when
    // that site is the same (SameSite counts no ports): it is answered as if signed out, so such a page can
    // neither read a page (the browser's same-origin rule) nor make a GET start servers.
    const fetchSite = req.headers["sec-fetch-site"];
    const own = fetchSite === undefined || fetchSite === "same-origin" || fetchSite === "none";
    const session = own ? sessions.get(cookies.get(SESSION_COOKIE)) : null;
    if (session === null) return signIn(res, 401, null, cookies);
    if (method === "POST") {
      const form = parseForm(await readBody(req, MAX_FORM_BYTES));
      if (!csrfValid(session, form.get("csrf")))
        return forbidden(res, "the form's CSRF token is missing or wrong");
      if (path === "/ui/logout") {
        sessions.delete(cookies.get(SESSION_COOKIE));
        return redirect(res, "/ui/login", { "Set-Cookie": clearCookie(SESSION_COOKIE) });
      }
      if (path === "/ui/refresh") {
        options.catalogs.clear();
        return redirect(
          res,
          `/ui/${queryString(selectionPairs(pickContext(form, directoryNames(options.dir)).selection))}`,
        );
      }
      if (path === "/ui/approvals/answer") {
        const answered = answerApproval(options.desk, form, session.operator);
        if (answered !== null) {
          options.log(`E_DASHBOARD_FORBIDDEN: ${answered.why}`);
          return send(res, answered.status, problemPage("Refused", "E_DASHBOARD_FORBIDDEN", answered.why));
        }
        return redirect(res, "/ui/approvals");
      }
      return send(res, 405, problemPage("Not allowed", null, "this page takes no POST"), {
        Allow: "GET, HEAD",
      });
    }
    if (path === "/ui/") return matrixPage(res, url, session.csrf);
    if (path === "/ui/audit") return auditPage(res, url, session.csrf);
    if (path === "/ui/whatif") {
      return whatIfRoute(res, url, session.csrf, {
        ...options,
        selection: options.selection ?? { skills: [] },
        runner: whatIf,
      });
    }
    if (path === "/ui/live")
      return send(
        res,
        200,
        page("Live decisions", "live", session.csrf, liveBody(options.live, url.searchParams)),
      );
    if (path === "/ui/live/events") {
      // The stream ends with the session: signing out (or its expiry) closes it.
      return liveEvents(options.live, url.searchParams, req, res, {
        onEnd: session.onEnd,
        live: () => sessions.live(session),
      });
    }
    if (path === "/ui/status") {
      const status = options.status === undefined ? null : await options.status.status();
      return send(res, 200, page("Status", "status", session.csrf, statusBody(status)));
    }
    if (path === "/ui/approvals") {
      return send(
        res,
        200,
        page(
          "Approvals",
          "approvals",
          session.csrf,
          approvalsBody(options.desk, session.csrf, session.operator),
        ),
      );
    }
    return send(res, 404, problemPage("Not found", null, "no such page"));
  };
}

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  let hosts = new Set<string>();
  const handle = dashboardHandler(options, () => hosts);

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof BodyTooLarge) {
        if (!res.headersSent)
          send(res, 413, problemPage("Too large", null, "the form is too large"), { Connection: "close" });
        return;
      }
      options.log(`a request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent)
        send(
          res,
          500,
          problemPage("Failed", "E_INTERNAL", "the page could not be made; see the dashboard's log"),
        );
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = acceptedHosts(options.host, port);
  const shown = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shown}:${port}/ui/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function selectionPairs(s: ContextSelection): [string, string | undefined][] {
  return [
    ["role", s.role],
    ["agent", s.agent],
    ["session", s.session],
    ["node", s.node],
    ...s.skills.map((k): [string, string] => ["skill", k]),
  ];
}
