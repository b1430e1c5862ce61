// serve --http as an OAuth 2.1 resource server, against a real OpenID provider (oidc-provider, in this
// process) issuing JWT access tokens by client credentials for the gateway's resource (RFC 8707): the
// protected resource metadata, the challenges, both eras' SDK clients with a real token, Claude Code with
// one, static tokens beside, and every bad token refused with its status, challenge and audit record.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair, SignJWT, importJWK, exportJWK } from "jose";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { startIssuer, type Issuer } from "./oidcIssuer.js";
import { claude, CLAUDE_CODE, INSPECTOR, installedBin } from "./realClients.js";
import { httpClient, rawHttp, serveHttp, textOf, type HttpServe } from "./serveHelpers.js";

const STATIC = "static-token-0123456789abcdef";
const dir = tempDir("tg-oauth-");
const auditLog = join(dir, "audit.jsonl");
let issuer: Issuer;
let served: HttpServe;

let claudeBin = "";
let inspectorBin = "";

beforeAll(async () => {
  // First, while nothing listens: an install blocks this process (spawnSync), and a connection to the
  // in-process provider would go stale meanwhile.
  claudeBin = installedBin(CLAUDE_CODE, "claude");
  inspectorBin = installedBin(INSPECTOR, "mcp-inspector");
  issuer = await startIssuer();
  const config = configDir({
    "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "tokens.yaml": `- name: ci\n  claims: { client_id: ci }\n- name: people\n  claims: { client_id: web }\n- name: static-bot\n  token: ${STATIC}\n`,
  });
  served = await serveHttp(config, [
    "--tokens",
    join(config, "tokens.yaml"),
    "--oauth-issuer",
    issuer.url,
    "--oauth-scope",
    "tools:call",
    "--audit-log",
    auditLog,
  ]);
}, 600_000);
afterAll(async () => {
  await served?.stop();
  await issuer?.stop();
});

const origin = () => new URL(served.url).origin;
const post = (token: string | null) =>
  rawHttp(
    served.url,
    "POST",
    {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  );

describe("toolgate as an OAuth resource server", () => {
  it("publishes its protected resource metadata (RFC 9728), at the path-suffixed and the plain path", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const answer = await fetch(origin() + path);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({
        resource: served.url,
        authorization_servers: [issuer.url],
        scopes_supported: ["tools:call"],
        bearer_methods_supported: ["header"],
        resource_name: "toolgate MCP gateway",
      });
    }
  });

  it("answers a request without a token 401 with a challenge naming the metadata and the scope", async () => {
    const answer = await post(null);
    expect(answer.status).toBe(401);
    expect(answer.headers["www-authenticate"]).toBe(
      `Bearer resource_metadata="${origin()}/.well-known/oauth-protected-resource/mcp", scope="tools:call"`,
    );
  });

  it("serves both eras' SDK clients with an access token from the provider", async () => {
    const token = await issuer.token("ci", served.url, "tools:call");
    const modern = new ModernClient(
      { name: "oauth-e2e", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    expect(textOf(await modern.callTool({ name: "m__echo", arguments: { message: "modern" } }))).toBe(
      "Echo: modern",
    );
    await modern.close();
    const { client } = await httpClient(served.url, token);
    expect(textOf(await client.callTool({ name: "m__echo", arguments: { message: "legacy" } }))).toBe(
      "Echo: legacy",
    );
    await client.close();
    const calls = readAudit(auditLog).filter((e) => e.event === "tools/call");
    expect(calls.map((e) => [e.client, e.principal])).toEqual([
      ["ci", `ci (ci at ${issuer.url})`],
      ["ci", `ci (ci at ${issuer.url})`],
    ]);
  });

  it("serves a user's token from the authorization code flow with PKCE", async () => {
    const token = await issuer.userToken("alice", served.url, "tools:call");
    const { client } = await httpClient(served.url, token);
    expect(textOf(await client.callTool({ name: "m__echo", arguments: { message: "alice" } }))).toBe(
      "Echo: alice",
    );
    await client.close();
    expect(
      readAudit(auditLog)
        .filter((e) => e.event === "tools/call")
        .at(-1),
    ).toMatchObject({ client: "people", principal: `people (alice at ${issuer.url})` });
  });

  it("the MCP Inspector CLI lists the tools with an access token in its header", async () => {
    const bin = inspectorBin;
    const token = await issuer.token("ci", served.url, "tools:call");
    const run = spawnSync(
      bin,
      [
        "--cli",
        "-q",
        served.url,
        "--transport",
        "http",
        "--header",
        `Authorization: Bearer ${token}`,
        "--method",
        "tools/list",
        "--format",
        "json",
      ],
      {
        encoding: "utf8",
        timeout: 90_000,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: tempDir("tg-oauth-insp-"),
          MCP_INSPECTOR_SECRET_STORE: "memory",
        },
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const names = (JSON.parse(run.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
      (t) => t.name,
    );
    expect(names).toContain("m__echo");
  }, 120_000);

  it("keeps static tokens working beside OAuth", async () => {
    const { client } = await httpClient(served.url, STATIC);
    expect(textOf(await client.callTool({ name: "m__echo", arguments: { message: "static" } }))).toBe(
      "Echo: static",
    );
    await client.close();
  });

  it("refuses every bad token with the right status and challenge, records it without the token, and passes nothing on", async () => {
    const now = Math.floor(Date.now() / 1000);
    const key = await importJWK(issuer.key, "RS256");
    const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      new SignJWT({ client_id: "ci", scope: "tools:call", ...claims })
        .setProtectedHeader({ alg: "RS256", kid: issuer.key.kid, ...header })
        .sign(key);
    const base = { iss: issuer.url, sub: "ci", aud: served.url, iat: now };
    const good = await sign({ ...base, exp: now + 300 });
    const [h, p, s] = good.split(".");
    const stranger = await generateKeyPair("RS256", { extractable: true });
    const unknownKid = await new SignJWT({ ...base, exp: now + 300, client_id: "ci", scope: "tools:call" })
      .setProtectedHeader({ alg: "RS256", kid: "not-published" })
      .sign(stranger.privateKey);
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${p}.`;
    const hmac = await new SignJWT({ ...base, exp: now + 300 })
      .setProtectedHeader({ alg: "HS256", kid: issuer.key.kid })
      .sign(new TextEncoder().encode(JSON.stringify(await exportJWK(stranger.publicKey))));
    const cases: Array<[string, string, number, string, string]> = [
      ["expired", await sign({ ...base, exp: now - 120 }), 401, "invalid_token", "has expired"],
      [
        "not yet valid",
        await sign({ ...base, exp: now + 600, nbf: now + 300 }),
        401,
        "invalid_token",
        "not valid yet",
      ],
      [
        "for another resource",
        await issuer.token("ci", "http://127.0.0.1:1/mcp", "tools:call"),
        401,
        "invalid_token",
        "not for this resource",
      ],
      [
        "from another issuer",
        await sign({ ...base, iss: "http://127.0.0.1:1", exp: now + 300 }),
        401,
        "invalid_token",
        "is not one this gateway trusts",
      ],
      ["signed with an unknown key", unknownKid, 401, "invalid_token", "a key the issuer does not publish"],
      [
        "tampered",
        `${h}.${Buffer.from(JSON.stringify({ ...base, exp: now + 300, client_id: "ci", scope: "tools:call", sub: "admin" })).toString("base64url")}.${s}`,
        401,
        "invalid_token",
        "signature does not verify",
      ],
      ["alg none", none, 401, "invalid_token", "algorithm is not accepted"],
      ["HMAC with a public key", hmac, 401, "invalid_token", "algorithm is not accepted"],
      [
        "missing the scope",
        await issuer.token("ci", served.url, "tools:read"),
        403,
        "insufficient_scope",
        "lacks the scope tools:call",
      ],
      [
        "mapped to no principal",
        await issuer.token("stranger", served.url, "tools:call"),
        403,
        "insufficient_scope",
        "no principal of this gateway matches",
      ],
    ];
    for (const [what, token, status, error, reason] of cases) {
      const answer = await post(token);
      expect(answer.status, what).toBe(status);
      const challenge = String(answer.headers["www-authenticate"]);
      expect(challenge, what).toContain(`error="${error}"`);
      expect(challenge, what).toContain(
        `resource_metadata="${origin()}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(JSON.parse(answer.body).error.message, what).toContain(reason);
    }
    const text = readAudit(auditLog)
      .filter((e) => e.client === "(not authenticated)")
      .map((e) => JSON.stringify(e));
    expect(text).toHaveLength(cases.length);
    for (const [what, token] of cases)
      expect(text.join("\n"), what).not.toContain(token.split(".")[2] || token);
    expect(served.stderr()).not.toContain(good.split(".")[2]!);
  });

  it("Claude Code connects with an access token in its header", async () => {
    const bin = claudeBin;
    const home = tempDir("tg-oauth-cc-");
    const token = await issuer.token("ci", served.url, "tools:call");
    expect(
      claude(
        bin,
        home,
        [
          "mcp",
          "add",
          "--transport",
          "http",
          "-s",
          "user",
          "gate",
          served.url,
          "--header",
          `Authorization: Bearer ${token}`,
        ],
        home,
      ).status,
    ).toBe(0);
    expect(claude(bin, home, ["mcp", "list"], home).stdout).toMatch(/gate: .* - ✔ Connected/);
  }, 120_000);
});
