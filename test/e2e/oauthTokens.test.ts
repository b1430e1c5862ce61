// What a token must be, and what it cannot make toolgate do, under serve --http --oauth-issuer: a real
// OpenID provider (oidc-provider, in this process) beside two stand-in issuers that are trusted but fail (a
// tiny node:http server answering 500, and one whose key set never ends), both on 127.0.0.1.
// - claims and headers with characters a header cannot hold are refused with the challenge, never a 500;
// - tokens naming a failing issuer make toolgate fetch once per cool-down, not once per request;
// - JWTs typed as something else than an access token are refused, the provider's own among them;
// - `scp` as Entra ID writes it (one string) is read, and a group's name is never split on spaces.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeProtectedHeader, importJWK, SignJWT } from "jose";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { startIssuer, type Issuer } from "./oidcIssuer.js";
import { httpClient, rawHttp, serveHttp, textOf, type HttpServe } from "./serveHelpers.js";

interface StandIn {
  url: string;
  hits: Map<string, number>;
  server: Server;
}

/** An issuer stand-in on 127.0.0.1 that counts requests by path and answers each with `answer`. */
async function standIn(answer: (path: string, res: ServerResponse, self: StandIn) => void): Promise<StandIn> {
  const self: StandIn = { url: "", hits: new Map(), server: createServer() };
  self.server.on("request", (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    self.hits.set(path, (self.hits.get(path) ?? 0) + 1);
    answer(path, res, self);
  });
  await new Promise<void>((resolve) => self.server.listen(0, "127.0.0.1", resolve));
  self.url = `http://127.0.0.1:${(self.server.address() as AddressInfo).port}`;
  return self;
}

const total = (s: StandIn) => [...s.hits.values()].reduce((a, b) => a + b, 0);
const dir = tempDir("tg-oauth-tokens-");
const auditLog = join(dir, "audit.jsonl");
let issuer: Issuer;
let failing: StandIn;
let endlessKeys: StandIn;
let endlessBytes = 0;
let served: HttpServe;

beforeAll(async () => {
  issuer = await startIssuer();
  failing = await standIn((_path, res) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end('{"error":"down"}');
  });
  endlessKeys = await standIn((path, res, self) => {
    if (path === "/.well-known/openid-configuration") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ issuer: self.url, jwks_uri: `${self.url}/jwks` }));
      return;
    }
    // Writes until the reader goes away; bounded here too, at 64 MiB.
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"keys":[');
    const chunk = Buffer.alloc(64 * 1024, " ");
    const more = (): void => {
      while (!res.destroyed && endlessBytes < 64 * 1024 * 1024) {
        endlessBytes += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
    };
    more();
  });
  const config = configDir({
    "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "tokens.yaml": [
      "- name: ci",
      "  claims: { client_id: ci }",
      "- name: admins",
      '  claims: { groups: ["mcp admins"] }',
      "- name: entra",
      "  claims: { client_id: entra-app, scope: [tools:read] }",
      "",
    ].join("\n"),
  });
  served = await serveHttp(config, [
    "--tokens",
    join(config, "tokens.yaml"),
    "--oauth-issuer",
    issuer.url,
    "--oauth-issuer",
    failing.url,
    "--oauth-issuer",
    endlessKeys.url,
    "--oauth-scope",
    "tools:call",
    "--audit-log",
    auditLog,
  ]);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await issuer?.stop();
  for (const s of [failing, endlessKeys]) {
    s?.server.closeAllConnections();
    await new Promise((resolve) => s?.server.close(resolve));
  }
});

const post = (token: string) =>
  rawHttp(
    served.url,
    "POST",
    {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  );

/** A token signed with the provider's own key: every claim and header field as the test says. */
async function signed(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer.url,
    sub: "svc",
    aud: served.url,
    iat: now,
    exp: now + 300,
    client_id: "ci",
    scope: "tools:call",
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", kid: issuer.key.kid, ...header })
    .sign(await importJWK(issuer.key, "RS256"));
}

function expectRefusal(
  answer: Awaited<ReturnType<typeof post>>,
  status: number,
  error: string,
  what: string,
) {
  expect(answer.status, `${what}: ${answer.body}`).toBe(status);
  const challenge = String(answer.headers["www-authenticate"]);
  expect(challenge, what).toContain(`error="${error}"`);
  expect(challenge, what).toContain("resource_metadata=");
  expect(challenge, what).toMatch(/^[\x20-\x7e]+$/);
  return { challenge, message: (JSON.parse(answer.body) as { error: { message: string } }).error.message };
}

describe("tokens carrying what a header cannot hold", () => {
  it("refuses each with its status and a challenge in plain ASCII, never a 500", async () => {
    const cases: Array<[string, string, number, string, string, string]> = [
      [
        "an issuer with non-Latin-1 characters",
        await signed({ iss: "http://é.example/用户" }),
        401,
        "invalid_token",
        "http://\\\\u00e9.example/\\\\u7528\\\\u6237",
        "http://é.example/用户",
      ],
      [
        "an issuer with control characters",
        await signed({ iss: "http://x\r\nSet-Cookie: a=b\u0000" }),
        401,
        "invalid_token",
        "http://x\\\\r\\\\nSet-Cookie: a=b\\\\u0000",
        "Set-Cookie: a=b",
      ],
      [
        "a typ with non-ASCII characters",
        await signed({}, { typ: "at+jwt✓" }),
        401,
        "invalid_token",
        "at+jwt\\\\u2713",
        "at+jwt✓",
      ],
      [
        "a kid with non-ASCII characters",
        await signed({}, { kid: "ключ" }),
        401,
        "invalid_token",
        "a key the issuer does not publish",
        "a key the issuer does not publish",
      ],
      [
        "a subject no principal matches, with Cyrillic and a line break",
        await signed({ sub: "пользователь\r\nx", client_id: "nobody" }),
        403,
        "insufficient_scope",
        "\\\\u043f\\\\u043e",
        "пользователь",
      ],
      [
        "a 3,000-character issuer (as long as a request header allows)",
        await signed({ iss: `http://${"用".repeat(3000)}` }),
        401,
        "invalid_token",
        "is not one this gateway trusts",
        "is not one this gateway trusts",
      ],
    ];
    for (const [what, token, status, error, inChallenge, inMessage] of cases) {
      const answer = await post(token);
      const { challenge, message } = expectRefusal(answer, status, error, what);
      expect(challenge, what).toContain(inChallenge);
      expect(challenge.length, what).toBeLessThan(4000);
      expect(message, what).toContain(inMessage);
    }
  });

  it("serves a mapped token whose subject has them", async () => {
    const token = await signed({ sub: "用户-ünï\r\n" });
    expect((await post(token)).status).toBe(200);
    const { client } = await httpClient(served.url, token);
    expect(textOf(await client.callTool({ name: "m__echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
    await client.close();
    expect(
      readAudit(auditLog)
        .filter((e) => e.event === "tools/call")
        .at(-1),
    ).toMatchObject({
      client: "ci",
      principal: `ci (用户-ünï\r\n at ${issuer.url})`,
    });
  });
});

describe("trusted issuers that fail", () => {
  it("are fetched once per cool-down (30 s), however many requests name them", async () => {
    const started = Date.now();
    for (const [name, target, reason] of [
      ["answering 500", failing, "answered HTTP 500"],
      ["with a key set that never ends", endlessKeys, "is larger than 1048576 bytes"],
    ] as const) {
      const token = await signed({ iss: target.url });
      for (let i = 0; i < 25; i++) {
        const { message } = expectRefusal(await post(token), 401, "invalid_token", name);
        expect(message, name).toContain(`the keys of issuer ${target.url} cannot be fetched`);
        expect(message, name).toContain(reason);
      }
      const together = await Promise.all(Array.from({ length: 10 }, () => post(token)));
      for (const answer of together) expectRefusal(answer, 401, "invalid_token", name);
    }
    // Each attempt: the OpenID path, then the RFC 8414 one (failing), or the metadata and the keys.
    const attempts = 1 + Math.floor((Date.now() - started) / 30_000);
    expect(total(failing)).toBeGreaterThanOrEqual(2);
    expect(total(failing)).toBeLessThanOrEqual(2 * attempts);
    expect(endlessKeys.hits.get("/jwks")).toBeGreaterThanOrEqual(1);
    expect(endlessKeys.hits.get("/jwks")).toBeLessThanOrEqual(attempts);
    // toolgate stopped reading: far less than the 64 MiB a reader that read on would have taken.
    expect(endlessBytes).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);
});

describe("the typ of a token", () => {
  it("refuses a JWT typed as something other than an access token, whoever signed it", async () => {
    const introspection = await issuer.introspectionJwt("ci");
    expect(decodeProtectedHeader(introspection).typ).toBe("token-introspection+jwt");
    const cases: Array<[string, string, string]> = [
      ["the provider's JWT introspection answer", introspection, "token-introspection+jwt"],
      ["an ID token type", await signed({}, { typ: "id_token+jwt" }), "id_token+jwt"],
      ["a logout token type", await signed({}, { typ: "logout+jwt" }), "logout+jwt"],
      ["a DPoP proof type", await signed({}, { typ: "dpop+jwt" }), "dpop+jwt"],
    ];
    for (const [what, token, typ] of cases) {
      const { message, challenge } = expectRefusal(await post(token), 401, "invalid_token", what);
      expect(message, what).toContain(`the token's typ "${typ}" is not an access token's`);
      expect(challenge, what).toContain("is not an access token");
    }
  });

  it("refuses the provider's ID token (untyped: for the client, not this resource)", async () => {
    const id = await issuer.idToken("alice", served.url);
    expect(decodeProtectedHeader(id).typ).toBeUndefined();
    const { message } = expectRefusal(await post(id), 401, "invalid_token", "ID token");
    expect(message).toContain("not for this resource");
  });

  it("accepts an access token's types, in any case, and none", async () => {
    for (const header of [{ typ: "at+jwt" }, { typ: "application/AT+JWT" }, { typ: "JWT" }, {}])
      expect((await post(await signed({}, header))).status, JSON.stringify(header)).toBe(200);
    expect((await post(await issuer.token("ci", served.url, "tools:call"))).status).toBe(200);
  });
});

describe("claims read as issuers write them", () => {
  it("reads scp as Entra ID writes it, one space-separated string", async () => {
    const token = await signed({ client_id: "entra-app", scope: undefined, scp: "tools:call tools:read" });
    expect((await post(token)).status).toBe(200);
    const list = await signed({
      client_id: "entra-app",
      scope: undefined,
      scp: ["tools:call", "tools:read"],
    });
    expect((await post(list)).status).toBe(200);
    const short = await signed({ client_id: "entra-app", scope: undefined, scp: "tools:call" });
    expectRefusal(await post(short), 403, "insufficient_scope", "without tools:read");
  });

  it("compares groups whole: the group 'mcp admins' is not the groups mcp and admins", async () => {
    const split = await signed({ client_id: "app", groups: ["mcp", "admins"] });
    const { message } = expectRefusal(await post(split), 403, "insufficient_scope", "split groups");
    expect(message).toContain("no principal of this gateway matches");
    expect((await post(await signed({ client_id: "app", groups: ["mcp admins"] }))).status).toBe(200);
  });
});
