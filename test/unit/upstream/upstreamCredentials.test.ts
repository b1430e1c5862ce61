// The tokens toolgate reaches remote servers with, against a token endpoint and a server in this process
// (node:http on 127.0.0.1): what the exchange sends, how long a token is kept, one retry on a 401, and
// refusals that name the server and the endpoint's error code but never a token or the secret.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CachedToken } from "../../../src/auth/cachedToken.js";
import { SubjectTokens } from "../../../src/auth/subjectTokens.js";
import { parseMcpJson } from "../../../src/config/mcpJson.js";
import { oauthPrincipal, tokenPrincipal } from "../../../src/engine/model/principal.js";
import { authFetch, UpstreamAuthError } from "../../../src/upstream/upstreamAuth.js";
import { UpstreamCredentials } from "../../../src/upstream/upstreamCredentials.js";
import { serverSecrets } from "../../../src/upstream/serverSecrets.js";

interface Seen {
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

let http: Server;
let base = "";
const seen: Seen[] = [];
/** What the token endpoint answers next (status, body); default: a fresh token. */
let answer: (form: URLSearchParams) => [number, unknown] = () => [200, {}];
let issued = 0;

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => resolve(text));
  });

beforeAll(async () => {
  http = createServer((req, res) => {
    void body(req).then((text) => {
      const form = new URLSearchParams(text);
      seen.push({ path: req.url ?? "", authorization: req.headers.authorization, form });
      if (req.url === "/.well-known/openid-configuration") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks`, token_endpoint: `${base}/token` }));
        return;
      }
      const [status, json] = answer(form);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          status === 200
            ? {
                access_token: `issued-${++issued}`,
                token_type: "Bearer",
                expires_in: 300,
                ...(json as object),
              }
            : json,
        ),
      );
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => http.close(() => r())));

const SECRET = "client-secret-0123456789";
const SUBJECT = "eyJhbGciOiJSUzI1NiJ9.subject-token-of-alice-0123456789.sig";

function server(auth: object, share?: string) {
  const r = parseMcpJson(
    "mcp.json",
    JSON.stringify({
      mcpServers: { jira: { type: "http", url: "https://jira/mcp", auth, ...(share ? { share } : {}) } },
    }),
  );
  expect(r.diagnostics).toEqual([]);
  return r.mcp.servers[0]!;
}

const exchangeAt = (endpoint?: string) =>
  server({
    type: "token_exchange",
    audience: "https://jira",
    scope: "jira:read",
    client_id: "toolgate",
    client_secret_env: "IDP_SECRET",
    ...(endpoint === undefined ? {} : { token_endpoint: endpoint }),
  });

function setup() {
  const subjects = new SubjectTokens();
  const credentials = new UpstreamCredentials({ subjectTokens: subjects, env: { IDP_SECRET: SECRET } });
  const alice = oauthPrincipal("people", base, "alice");
  subjects.remember(alice.key, SUBJECT, Date.now() + 60_000);
  return { subjects, credentials, alice };
}

describe("token exchange (RFC 8693)", () => {
  it("sends the principal's token as subject_token, toolgate's client in Basic, and keeps the answer", async () => {
    seen.length = 0;
    answer = () => [200, {}];
    const { credentials, alice } = setup();
    const auth = credentials.forServer(exchangeAt(`${base}/token`), alice)!;
    const first = await auth.token();
    expect(await auth.token()).toBe(first);
    expect(seen).toHaveLength(1);
    const sent = seen[0]!;
    expect(Object.fromEntries(sent.form)).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: SUBJECT,
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: "https://jira",
      scope: "jira:read",
    });
    expect(sent.authorization).toBe(`Basic ${Buffer.from(`toolgate:${SECRET}`).toString("base64")}`);
    expect(auth.secrets()).toEqual([first]);
  });

  it("finds the token endpoint in the principal's issuer's metadata", async () => {
    seen.length = 0;
    const { credentials, alice } = setup();
    await credentials.forServer(exchangeAt(), alice)!.token();
    expect(seen.map((s) => s.path)).toEqual(["/.well-known/openid-configuration", "/token"]);
  });

  it("one exchange per principal and server: another principal gets its own", async () => {
    seen.length = 0;
    const { credentials, subjects, alice } = setup();
    const bob = oauthPrincipal("people", base, "bob");
    subjects.remember(bob.key, "bob-token-xyz", Date.now() + 60_000);
    const config = exchangeAt(`${base}/token`);
    const a = await credentials.forServer(config, alice)!.token();
    const b = await credentials.forServer(config, bob)!.token();
    expect(a).not.toBe(b);
    expect(await credentials.forServer(config, alice)!.token()).toBe(a);
    expect(seen.map((s) => s.form.get("subject_token"))).toEqual([SUBJECT, "bob-token-xyz"]);
  });

  it("a refused exchange names the server and the error code, never a token or the secret", async () => {
    answer = () => [
      400,
      { error: "invalid_grant", error_description: `subject token ${SUBJECT} is revoked` },
    ];
    const { credentials, alice } = setup();
    const error = await credentials
      .forServer(exchangeAt(`${base}/token`), alice)!
      .token()
      .catch((e: unknown) => e);
    answer = () => [200, {}];
    expect(error).toBeInstanceOf(UpstreamAuthError);
    const { code, message } = error as UpstreamAuthError;
    expect(code).toBe("E_UPSTREAM_AUTH");
    expect(message).toContain("MCP server 'jira'");
    expect(message).toContain("invalid_grant (HTTP 400)");
    expect(message).not.toContain(SUBJECT);
    expect(message).not.toContain("revoked"); // the description echoed the token: left out whole
    expect(message).not.toContain(SECRET);
  });

  it("a plain description is shown", async () => {
    answer = () => [
      400,
      { error: "unauthorized_client", error_description: "client not allowed to exchange" },
    ];
    const { credentials, alice } = setup();
    const error = (await credentials
      .forServer(exchangeAt(`${base}/token`), alice)!
      .token()
      .catch((e: unknown) => e)) as Error;
    answer = () => [200, {}];
    expect(error.message).toContain("unauthorized_client (HTTP 400): client not allowed to exchange");
  });

  it("a static-token principal or none has no user token: E_UPSTREAM_AUTH_PRINCIPAL, nothing sent", async () => {
    seen.length = 0;
    const { credentials } = setup();
    for (const who of [tokenPrincipal("ci"), null]) {
      const error = (await credentials
        .forServer(exchangeAt(`${base}/token`), who)!
        .token()
        .catch((e: unknown) => e)) as UpstreamAuthError;
      expect(error.code).toBe("E_UPSTREAM_AUTH_PRINCIPAL");
    }
    expect(seen).toEqual([]);
  });

  it("a principal whose token expired, or a secret not set, is E_UPSTREAM_AUTH saying which", async () => {
    const { credentials } = setup();
    const carol = oauthPrincipal("people", base, "carol");
    const noToken = (await credentials
      .forServer(exchangeAt(`${base}/token`), carol)!
      .token()
      .catch((e: unknown) => e)) as Error;
    expect(noToken.message).toContain("no current access token of people (carol at");
    const { alice } = setup();
    const subjects = new SubjectTokens();
    subjects.remember(alice.key, SUBJECT, Date.now() + 60_000);
    const missing = (await new UpstreamCredentials({ subjectTokens: subjects, env: {} })
      .forServer(exchangeAt(`${base}/token`), alice)!
      .token()
      .catch((e: unknown) => e)) as Error;
    expect(missing.message).toMatch(
      /environment variable IDP_SECRET is not set \(client_secret_env of MCP server 'jira', mcp\.json:\d+\)/,
    );
  });

  it("the client secret is among the server's secrets to scrub", () => {
    expect(serverSecrets(exchangeAt(), { IDP_SECRET: SECRET })).toContain(SECRET);
  });
});

describe("client credentials", () => {
  it("the gateway's own token, one for everybody", async () => {
    seen.length = 0;
    const { credentials, alice } = setup();
    const config = server({
      type: "client_credentials",
      token_endpoint: `${base}/token`,
      client_id: "toolgate",
      client_secret_env: "IDP_SECRET",
    });
    const a = await credentials.forServer(config, alice)!.token();
    expect(await credentials.forServer(config, tokenPrincipal("ci"))!.token()).toBe(a);
    expect(Object.fromEntries(seen[0]!.form)).toEqual({ grant_type: "client_credentials" });
  });
});

describe("a token kept until shortly before it expires", () => {
  it("30 s before, or half a short lifetime; obtained again after; one request for callers at once", async () => {
    let now = 0;
    let made = 0;
    let lifetimeS = 300;
    const cached = new CachedToken(
      async () => ({ token: `t${++made}`, lifetimeS }),
      () => now,
    );
    const [x, y] = await Promise.all([cached.get(), cached.get()]);
    expect([x, y, made]).toEqual(["t1", "t1", 1]);
    now = 269_999;
    expect(await cached.get()).toBe("t1");
    now = 270_000;
    expect(await cached.get()).toBe("t2");
    lifetimeS = 20;
    cached.drop("t2");
    const start = now;
    expect(await cached.get()).toBe("t3");
    now = start + 9_999;
    expect(await cached.get()).toBe("t3");
    now = start + 10_000;
    expect(await cached.get()).toBe("t4");
    expect(cached.secrets()).toEqual(["t4", "t3"]);
  });
});

describe("authFetch", () => {
  let upstream: Server;
  let url = "";
  const accepted = new Set<string>();
  const got: string[] = [];
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      got.push(token);
      if (token === "forbidden") {
        res.writeHead(403, { "www-authenticate": 'Bearer error="insufficient_scope"' }).end(`no ${token}`);
        return;
      }
      if (!accepted.has(token)) {
        res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end(`bad token ${token}`);
        return;
      }
      res.writeHead(200).end("ok");
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((r) => upstream.close(() => r())));

  const source = (tokens: string[]) => {
    const dropped: string[] = [];
    return {
      dropped,
      auth: {
        who: "alice",
        token: async () => tokens[0]!,
        refused: (t: string) => {
          dropped.push(t);
          tokens.shift();
        },
        secrets: () => [],
      },
    };
  };

  it("a 401 gets one more try with a fresh token", async () => {
    got.length = 0;
    accepted.clear();
    accepted.add("fresh");
    const { auth, dropped } = source(["stale", "fresh"]);
    const res = await authFetch("jira", auth)(url, { method: "POST", body: "{}" });
    expect(res.status).toBe(200);
    expect(got).toEqual(["stale", "fresh"]);
    expect(dropped).toEqual(["stale"]);
  });

  it("a second 401, or a 403, is E_UPSTREAM_AUTH without the server's words", async () => {
    got.length = 0;
    accepted.clear();
    const twice = (await authFetch("jira", source(["a1", "a2"]).auth)(url, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e)) as UpstreamAuthError;
    expect(twice.code).toBe("E_UPSTREAM_AUTH");
    expect(twice.message).toBe(
      "MCP server 'jira' refused the token toolgate obtained for alice (HTTP 401 invalid_token, again with a fresh token)",
    );
    const forbidden = (await authFetch("jira", source(["forbidden"]).auth)(url, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e)) as UpstreamAuthError;
    expect(forbidden.message).toBe(
      "MCP server 'jira' refused the token toolgate obtained for alice (HTTP 403 insufficient_scope)",
    );
    expect(got).toEqual(["a1", "a2", "forbidden"]);
  });
});
