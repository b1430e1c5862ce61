// Per-user credentials to remote servers (mcp.json `auth: token_exchange`), with real parts: an OpenID
// provider (oidc-provider) that exchanges tokens (RFC 8693, registered in exchangeIssuer.ts), users who
// sign in there, a gateway, and remote MCP servers (v2 SDK, Streamable HTTP) that admit only a token of
// that issuer for their own audience and answer with its subject. Two users reach a server as themselves
// through one gateway, never with their own token; an exchanged token that expires is replaced, and one the
// server refuses is replaced once; a revoked user and a static-token client are refused with their codes;
// and no token, nor the gateway's client secret, appears in anything the gateway writes.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { startExchangeIssuer, GATEWAY_CLIENT, type ExchangeIssuer } from "./exchangeIssuer.js";
import { readAudit, tempDir } from "./helpers.js";
import { httpClient, serveHttp, textOf, type HttpServe } from "./serveHelpers.js";
import { startUserMcpServer, type UserMcpServer } from "./userMcpServer.js";

const JIRA = "https://jira.test";
/** Tokens for this audience live 3 s: kept 1.5 s (half a short lifetime), then exchanged again. */
const SHORT = "https://short.test";
const STATIC_TOKEN = "ci-static-token-0123456789abcdef";
const dir = tempDir("tg-upstream-auth-");
const auditLog = join(dir, "audit.jsonl");

let issuer: ExchangeIssuer;
let jira: UserMcpServer;
let short: UserMcpServer;
let served: HttpServe;
const userTokens: Record<string, string> = {};
/** Everything a client was answered (texts), to look for tokens in. */
const answers: string[] = [];

type Client = Awaited<ReturnType<typeof httpClient>>["client"];
const clients: Client[] = [];
async function as(token: string): Promise<Client> {
  const { client } = await httpClient(served.url, token);
  clients.push(client);
  return client;
}
async function call(client: Client, tool: string): Promise<string> {
  const text = textOf(await client.callTool({ name: tool, arguments: {} }));
  answers.push(text);
  return text;
}

beforeAll(async () => {
  issuer = await startExchangeIssuer({ [JIRA]: 3600, [SHORT]: 3 });
  [jira, short] = await Promise.all([
    startUserMcpServer(issuer.url, JIRA),
    startUserMcpServer(issuer.url, SHORT),
  ]);
  const exchange = (audience: string, endpoint?: string) => ({
    type: "token_exchange",
    audience,
    client_id: GATEWAY_CLIENT.id,
    client_secret_env: "TOOLGATE_EXCHANGE_SECRET",
    ...(endpoint === undefined ? {} : { token_endpoint: endpoint }),
  });
  const config = configDir({
    "mcp.json": mcpJson({
      // The token endpoint found in the issuer's metadata.
      jira: { type: "http", url: jira.url, auth: exchange(JIRA) },
      short: { type: "http", url: short.url, auth: exchange(SHORT, `${issuer.url}/token`) },
    }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "tokens.yaml": [
      "- name: people",
      "  claims: { client_id: web }",
      "- name: ci",
      `  token_sha256: ${createHash("sha256").update(STATIC_TOKEN).digest("hex")}`,
      "",
    ].join("\n"),
  });
  served = await serveHttp(
    config,
    ["--tokens", join(config, "tokens.yaml"), "--oauth-issuer", issuer.url, "--audit-log", auditLog],
    { TOOLGATE_EXCHANGE_SECRET: GATEWAY_CLIENT.secret },
  );
  issuer.gatewayAudience.value = served.url;
  for (const user of ["alice", "bob", "carol"])
    userTokens[user] = await issuer.userToken(user, served.url, "openid tools:call");
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await served?.stop();
  await Promise.all([jira?.close(), short?.close()]);
  await issuer?.stop();
});

const grants = (sub: string, audience: string) =>
  issuer.granted.filter((g) => g.sub === sub && g.audience === audience).length;

describe("token exchange to remote servers", () => {
  it("two users through one gateway reach the server as themselves, each with a token exchanged once", async () => {
    const alice = await as(userTokens.alice!);
    const bob = await as(userTokens.bob!);
    const listed = (await alice.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("jira__whoami");
    expect(await call(alice, "jira__whoami")).toBe("you are alice");
    expect(await call(bob, "jira__whoami")).toBe("you are bob");
    expect(await call(alice, "jira__whoami")).toBe("you are alice");
    expect(await call(bob, "jira__whoami")).toBe("you are bob");
    // Cached per principal: one exchange each, whatever the number of requests.
    expect([grants("alice", JIRA), grants("bob", JIRA)]).toEqual([1, 1]);
    // The server was sent exchanged tokens only: never a user's own token (for the gateway).
    for (const own of Object.values(userTokens)) expect(jira.tokens.has(own)).toBe(false);
    expect(new Set(jira.calls.map((c) => c.sub))).toEqual(new Set(["alice", "bob"]));
    // A client of the 2026-07-28 era (the v2 SDK, no session) reaches it as the same user.
    const modern = new ModernClient(
      { name: "upstream-auth-e2e", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${userTokens.bob!}` } },
      }),
    );
    const modernText = textOf(await modern.callTool({ name: "jira__whoami", arguments: {} }));
    answers.push(modernText);
    expect(modernText).toBe("you are bob");
    await modern.close();
    const events = readAudit(auditLog).filter((e) => e.event === "tools/call" && e.decision === "allow");
    expect(new Set(events.map((e) => e.principal))).toEqual(
      new Set([`people (alice at ${issuer.url})`, `people (bob at ${issuer.url})`]),
    );
  });

  it("an exchanged token that expires is replaced by a new exchange", async () => {
    const alice = await as(userTokens.alice!);
    expect(await call(alice, "short__whoami")).toBe("you are alice");
    const first = short.calls.at(-1)!.jti;
    // Past its 3 s: the server (no clock skew) would refuse it; toolgate sends a new one.
    await new Promise((r) => setTimeout(r, 3500));
    expect(await call(alice, "short__whoami")).toBe("you are alice");
    expect(short.calls.at(-1)!.jti).not.toBe(first);
    expect(grants("alice", SHORT)).toBeGreaterThanOrEqual(2);
  });

  it("a token the server refuses (401) is replaced once, and the call goes through", async () => {
    const alice = await as(userTokens.alice!);
    const before = jira.unauthorized;
    const held = jira.calls.filter((c) => c.sub === "alice").at(-1)!.jti;
    jira.refuse(held);
    expect(await call(alice, "jira__whoami")).toBe("you are alice");
    expect(jira.unauthorized).toBe(before + 1);
    expect(jira.calls.at(-1)!.jti).not.toBe(held);
    expect(grants("alice", JIRA)).toBe(2);
  });

  it("a revoked user is refused with E_UPSTREAM_AUTH naming the server and the provider's error code", async () => {
    issuer.revoke("carol");
    const carol = await as(userTokens.carol!);
    const first = await call(carol, "jira__whoami");
    expect(first).toMatch(/^Blocked by toolgate: E_UPSTREAM_AUTH /);
    expect(first).toContain("MCP server 'jira'");
    expect(first).toContain("invalid_grant");
    expect(jira.calls.some((c) => c.sub === "carol")).toBe(false);
    // bob, revoked while his exchanged token is still held: once the server refuses it, no new one is had.
    const bob = await as(userTokens.bob!);
    issuer.revoke("bob");
    jira.refuse(jira.calls.filter((c) => c.sub === "bob").at(-1)!.jti);
    const refused = await call(bob, "jira__whoami");
    expect(refused).toMatch(/^Blocked by toolgate: E_UPSTREAM_AUTH /);
    expect(refused).toContain("invalid_grant");
    expect(issuer.refused.map((r) => r.sub)).toEqual(expect.arrayContaining(["carol", "bob"]));
    const denies = readAudit(auditLog).filter((e) => e.decision === "deny" && e.code === "E_UPSTREAM_AUTH");
    expect(new Set(denies.map((e) => e.principal))).toEqual(
      new Set([`people (carol at ${issuer.url})`, `people (bob at ${issuer.url})`]),
    );
  });

  it("a static-token principal has no user token: E_UPSTREAM_AUTH_PRINCIPAL, and nothing is exchanged", async () => {
    const exchanges = issuer.granted.length + issuer.refused.length;
    const ci = await as(STATIC_TOKEN);
    const text = await call(ci, "jira__whoami");
    expect(text).toMatch(/^Blocked by toolgate: E_UPSTREAM_AUTH_PRINCIPAL /);
    expect(text).toContain("MCP server 'jira'");
    expect(issuer.granted.length + issuer.refused.length).toBe(exchanges);
    const deny = readAudit(auditLog).find((e) => e.code === "E_UPSTREAM_AUTH_PRINCIPAL");
    expect(deny).toMatchObject({ principal: "ci", decision: "deny" });
  });

  it("no token and no client secret in the log, the audit log or any answer", async () => {
    const secrets = [
      ...Object.values(userTokens),
      STATIC_TOKEN,
      ...jira.tokens,
      ...short.tokens,
      GATEWAY_CLIENT.secret,
    ];
    // The servers were sent tokens (so there is something to look for).
    expect(jira.tokens.size).toBe(3);
    const outputs = {
      stderr: served.stderr(),
      audit: readFileSync(auditLog, "utf8"),
      answers: answers.join("\n"),
    };
    expect(outputs.stderr).toContain("invalid_grant");
    for (const [where, text] of Object.entries(outputs)) {
      const found = secrets.filter((s) => text.includes(s) || text.includes(s.slice(0, 40)));
      expect({ where, found: found.length }).toEqual({ where, found: 0 });
    }
  });
});

describe("start-up refusals", () => {
  const exchange = {
    type: "token_exchange",
    audience: JIRA,
    client_id: "toolgate",
    client_secret_env: "TOOLGATE_EXCHANGE_SECRET",
  };
  const start = (server: object, env: Record<string, string>) => {
    const config = configDir({
      "mcp.json": mcpJson({ jira: { type: "http", url: "http://127.0.0.1:9/mcp", ...server } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    return runCli(["serve", "--config-dir", config, "--http", "0", "--token", STATIC_TOKEN], { env });
  };

  it('"share": "all" on a token_exchange server: refused, naming file, line and field', async () => {
    const run = await start({ auth: exchange, share: "all" }, { TOOLGATE_EXCHANGE_SECRET: "x".repeat(20) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /mcp\.json:\d+:\d+: error E_MCP_SERVER mcpServers\.jira\.share: "share": "all"/,
    );
  });

  it("a client secret not set in the environment: refused, naming the variable and where it is named", async () => {
    const run = await start({ auth: exchange }, { TOOLGATE_EXCHANGE_SECRET: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /mcp\.json:\d+:\d+: error E_MCP_SERVER mcpServers\.jira\.auth\.client_secret_env: the environment variable TOOLGATE_EXCHANGE_SECRET/,
    );
  });
});
