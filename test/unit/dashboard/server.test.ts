// The dashboard's HTTP server in-process, over a real configuration directory and a catalog fetcher that
// returns fixed catalogs: who gets what without a session, the sign-in, and every POST's origin and CSRF
// checks, with raw requests (so Host, Origin and Referer are exactly what the test says).
import { localPrincipal } from "../../../src/engine/model/principal.js";
import { request } from "node:http";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CatalogCache, type FetchCatalog } from "../../../src/dashboard/catalogCache.js";
import { CSP } from "../../../src/dashboard/respond.js";
import { startDashboard, type RunningDashboard } from "../../../src/dashboard/server.js";

const TOKEN = "unit-dashboard-token-0123";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let dashboard: RunningDashboard;
let fetches = 0;

function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: dashboard.port,
        method,
        path,
        headers: {
          host: `127.0.0.1:${dashboard.port}`,
          ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const origin = (): string => `http://127.0.0.1:${dashboard.port}`;

function cookieValue(answer: Answer, name: string): string {
  const set = ([] as string[]).concat(answer.headers["set-cookie"] ?? []);
  const line = set.find((c) => c.startsWith(`${name}=`));
  if (line === undefined) throw new Error(`no ${name} cookie in ${JSON.stringify(set)}`);
  return line.slice(name.length + 1, line.indexOf(";"));
}

function csrfOf(body: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(body);
  if (m === null) throw new Error("no csrf field");
  return m[1]!;
}

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const page = await send("GET", "/ui/login");
  const nonce = cookieValue(page, "tg_login");
  const done = await send(
    "POST",
    "/ui/login",
    { origin: origin(), cookie: `tg_login=${nonce}` },
    `csrf=${nonce}&token=${TOKEN}`,
  );
  expect(done.status).toBe(303);
  const cookie = `tg_dashboard=${cookieValue(done, "tg_dashboard")}`;
  const matrix = await send("GET", "/ui/", { cookie });
  return { cookie, csrf: csrfOf(matrix.body) };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "tg-dash-unit-"));
  writeFileSync(
    join(dir, "mcp.json"),
    JSON.stringify({ mcpServers: { gh: { command: "unused", allowedTools: ["get_*", "nothing_*"] } } }),
  );
  writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\n");
  mkdirSync(join(dir, "roles"));
  writeFileSync(join(dir, "roles", "reader.md"), '---\nmcp_tools:\n  gh: [get_issue, "bad pattern"]\n---\n');
  const fetchCatalog: FetchCatalog = () => {
    fetches++;
    const names = ["get_issue", "get_pr", "delete_repo", "<b>x</b>"];
    return Promise.resolve({ capabilities: ["tools"], names, seen: new Map() });
  };
  dashboard = await startDashboard({
    host: "127.0.0.1",
    port: 0,
    signIn: (presented) =>
      presented === TOKEN
        ? {
            principal: localPrincipal("operator"),
            rights: { mcp: false, dashboard: "viewer", approves: null },
          }
        : { refused: "That is not the dashboard's token." },
    dir,
    auditLogs: [join(dir, "missing.jsonl")],
    locatePolicy: () => null,
    catalogs: new CatalogCache(fetchCatalog, 60_000),
    log: () => {},
  });
});

afterAll(async () => {
  await dashboard?.close();
});

describe("without a session", () => {
  it("every page is 401 with the sign-in form and nothing of the configuration", async () => {
    for (const path of ["/ui/", "/ui/audit", "/ui/?role=reader", "/ui/nope"]) {
      const a = await send("GET", path);
      expect(a.status).toBe(401);
      expect(a.body).toContain('type="password"');
      expect(a.body).toContain("Sign in");
      expect(a.body).not.toContain("get_issue");
      expect(a.body).not.toContain("missing.jsonl");
      expect(a.headers["content-security-policy"]).toBe(CSP);
    }
    expect(fetches).toBe(0);
  });

  it("a wrong token is 401 and the sign-in page again; no session cookie", async () => {
    const page = await send("GET", "/ui/login");
    const nonce = cookieValue(page, "tg_login");
    const a = await send(
      "POST",
      "/ui/login",
      { origin: origin(), cookie: `tg_login=${nonce}` },
      `csrf=${nonce}&token=${TOKEN}x`,
    );
    expect(a.status).toBe(401);
    expect(a.body).toContain("not the dashboard");
    expect(JSON.stringify(a.headers["set-cookie"] ?? [])).not.toContain("tg_dashboard");
  });

  it("a sign-in without the form's nonce, or from another origin, is 403", async () => {
    const page = await send("GET", "/ui/login");
    const nonce = cookieValue(page, "tg_login");
    const noNonce = await send("POST", "/ui/login", { origin: origin() }, `csrf=${nonce}&token=${TOKEN}`);
    expect(noNonce.status).toBe(403);
    const cross = await send(
      "POST",
      "/ui/login",
      { origin: "http://127.0.0.1:1", cookie: `tg_login=${nonce}` },
      `csrf=${nonce}&token=${TOKEN}`,
    );
    expect(cross.status).toBe(403);
    expect(cross.body).toContain("E_DASHBOARD_FORBIDDEN");
  });

  it("a Host that does not name the dashboard is 403 (DNS rebinding)", async () => {
    const a = await send("GET", "/ui/login", { host: `rebind.example:${dashboard.port}` });
    expect(a.status).toBe(403);
  });
});

describe("signed in", () => {
  it("the session cookie is HttpOnly, SameSite=Strict, Path=/ui", async () => {
    const page = await send("GET", "/ui/login");
    const nonce = cookieValue(page, "tg_login");
    const done = await send(
      "POST",
      "/ui/login",
      { origin: origin(), cookie: `tg_login=${nonce}` },
      `csrf=${nonce}&token=${TOKEN}`,
    );
    const set = ([] as string[])
      .concat(done.headers["set-cookie"] ?? [])
      .find((c) => c.startsWith("tg_dashboard="));
    expect(set).toMatch(/; HttpOnly; SameSite=Strict; Path=\/ui$/);
    expect(done.headers.location).toBe("/ui/");
  });

  it("the matrix shows the engine's verdicts per layer, escaped", async () => {
    const { cookie } = await signIn();
    const a = await send("GET", "/ui/?role=reader", { cookie });
    expect(a.status).toBe(200);
    expect(a.body).toMatch(
      /<tr data-tool="get_pr">.*data-column="role" title="hidden by role \(reader\): no pattern of get_issue \| bad pattern matches"/,
    );
    expect(a.body).toMatch(/<tr data-tool="delete_repo">.*class="cell hide first" data-column="global"/);
    expect(a.body).toContain("global pattern &#39;nothing_*&#39; matches no allowed tools");
    expect(a.body).toMatch(
      /role \(reader\) pattern &#39;bad pattern&#39; is invalid: .*<code>roles\/reader\.md:3:\d+<\/code>/,
    );
    expect(a.body).toContain("W_INVALID_PATTERN");
    expect(a.body).not.toContain("pattern &#39;bad pattern&#39; matches no allowed tools");
    expect(a.body).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(a.body).not.toContain("<b>x</b>");
  });

  it("a POST needs a same-origin Origin (or Referer) and the session's CSRF token", async () => {
    const { cookie, csrf } = await signIn();
    const body = `csrf=${csrf}&role=reader`;
    const ok = await send("POST", "/ui/refresh", { cookie, origin: origin() }, body);
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe("/ui/?role=reader");
    const byReferer = await send("POST", "/ui/refresh", { cookie, referer: `${origin()}/ui/` }, body);
    expect(byReferer.status).toBe(303);
    const cross = await send("POST", "/ui/refresh", { cookie, origin: "http://127.0.0.1:9" }, body);
    expect(cross.status).toBe(403);
    const neither = await send("POST", "/ui/refresh", { cookie }, body);
    expect(neither.status).toBe(403);
    const noToken = await send("POST", "/ui/refresh", { cookie, origin: origin() }, "role=reader");
    expect(noToken.status).toBe(403);
    const otherToken = await send("POST", "/ui/refresh", { cookie, origin: origin() }, `csrf=${csrf}x`);
    expect(otherToken.status).toBe(403);
    const noSession = await send("POST", "/ui/refresh", { origin: origin() }, body);
    expect(noSession.status).toBe(401);
  });

  it("refresh drops the cached catalogs; the redirect keeps only names the directory defines", async () => {
    const { cookie, csrf } = await signIn();
    await send("GET", "/ui/", { cookie });
    const before = fetches;
    const a = await send(
      "POST",
      "/ui/refresh",
      { cookie, origin: origin() },
      `csrf=${csrf}&role=../../etc&agent=nope`,
    );
    expect(a.headers.location).toBe("/ui/");
    await send("GET", "/ui/", { cookie });
    expect(fetches).toBe(before + 1);
  });

  it("a request another origin made the browser send (Sec-Fetch-Site) is answered as signed out", async () => {
    const { cookie } = await signIn();
    for (const site of ["same-site", "cross-site"]) {
      expect((await send("GET", "/ui/", { cookie, "sec-fetch-site": site })).status).toBe(401);
    }
    for (const site of ["same-origin", "none"]) {
      expect((await send("GET", "/ui/", { cookie, "sec-fetch-site": site })).status).toBe(200);
    }
  });

  it("sign-out ends the session", async () => {
    const { cookie, csrf } = await signIn();
    const out = await send("POST", "/ui/logout", { cookie, origin: origin() }, `csrf=${csrf}`);
    expect(out.status).toBe(303);
    expect((await send("GET", "/ui/", { cookie })).status).toBe(401);
  });

  it("an audit log that cannot be read is shown as such", async () => {
    const { cookie } = await signIn();
    const a = await send("GET", "/ui/audit", { cookie });
    expect(a.body).toContain("UNREADABLE");
    expect(a.body).toContain("E_AUDIT_READ");
  });

  it("an oversized form is 413; other methods 405", async () => {
    const { cookie, csrf } = await signIn();
    const big = await send(
      "POST",
      "/ui/refresh",
      { cookie, origin: origin() },
      `csrf=${csrf}&x=${"a".repeat(20_000)}`,
    );
    expect(big.status).toBe(413);
    expect((await send("DELETE", "/ui/", { cookie })).status).toBe(405);
  });
});
