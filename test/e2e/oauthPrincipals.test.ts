// Who an OAuth client is, tried with two real OpenID providers (oidc-provider) trusting one gateway: two
// subjects under one claims: entry, and the same subject at two issuers, are three principals. Each has its
// own limits, its own shared server process, its own sessions (another's token gets 404) and its own
// request states (a state minted for alice at one issuer is refused for alice at the other). And start-up
// refuses configurations that would merge or mislabel principals, each saying what to write instead.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { childPids, FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { startIssuer, type Issuer } from "./oidcIssuer.js";
import { httpClient, rawHttp, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";

const MODERN = "2026-07-28";
const dir = tempDir("tg-oauth-principals-");
const auditLog = join(dir, "audit.jsonl");
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml":
    'version: "2.0"\ntools:\n  approval_required: ["deploy"]\nenforcement: { unconstrained_tools: allow }\nlimits: { max_tool_calls_total: 3 }\n',
  "tokens.yaml": "- name: people\n  claims: { client_id: web }\n",
});

let a: Issuer;
let b: Issuer;
let served: HttpServe;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  [a, b] = await Promise.all([startIssuer(), startIssuer()]);
  served = await serveHttp(config, [
    "--tokens",
    join(config, "tokens.yaml"),
    "--policy",
    join(config, "policy.yaml"),
    "--oauth-issuer",
    a.url,
    "--oauth-issuer",
    b.url,
    "--oauth-scope",
    "tools:call",
    "--audit-log",
    auditLog,
  ]);
  tokens.aliceAtA = await a.userToken("alice", served.url, "openid tools:call");
  tokens.bobAtA = await a.userToken("bob", served.url, "openid tools:call");
  tokens.aliceAtB = await b.userToken("alice", served.url, "openid tools:call");
  tokens.carolAtA = await a.userToken("carol", served.url, "openid tools:call");
  tokens.carolAtB = await b.userToken("carol", served.url, "openid tools:call");
}, 120_000);
afterAll(async () => {
  await served?.stop();
  await Promise.all([a?.stop(), b?.stop()]);
});

const headers = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra,
});

describe("OAuth principals: issuer and subject, never the entry alone", () => {
  it("two subjects under one entry and one subject at two issuers are three principals, each with its own limit and server", async () => {
    const clients = await Promise.all(
      ["aliceAtA", "bobAtA", "aliceAtB"].map(
        async (who) => (await httpClient(served.url, tokens[who]!)).client,
      ),
    );
    const [aliceA, bobA, aliceB] = clients as [(typeof clients)[0], (typeof clients)[0], (typeof clients)[0]];
    for (const c of clients) await c.listTools();
    // share: principal (the default): one server process per principal, not per entry.
    await until(() => childPids(served.proc.pid!).length === 3);
    const echo = (c: typeof aliceA, m: string) =>
      c.callTool({ name: "m__echo", arguments: { message: m } }).then(textOf);
    for (let i = 0; i < 3; i++) expect(await echo(aliceA, `a${i}`)).toBe(`Echo: a${i}`);
    expect(await echo(aliceA, "over")).toContain("E_RATE_LIMIT");
    // alice at A spent her own calls: bob at A and alice at B still have theirs.
    expect(await echo(bobA, "bob")).toBe("Echo: bob");
    expect(await echo(aliceB, "alice-b")).toBe("Echo: alice-b");
    const principals = new Set(
      readAudit(auditLog)
        .filter((e) => e.event === "tools/call")
        .map((e) => e.principal),
    );
    expect(principals).toEqual(
      new Set([`people (alice at ${a.url})`, `people (bob at ${a.url})`, `people (alice at ${b.url})`]),
    );
    for (const c of clients) await c.close();
  });

  it("a session opened by alice at one issuer is not found for alice at the other", async () => {
    const init = await rawHttp(
      served.url,
      "POST",
      headers(tokens.aliceAtA!),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    const session = init.headers["mcp-session-id"] as string;
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const other = await rawHttp(
      served.url,
      "POST",
      headers(tokens.aliceAtB!, { "mcp-session-id": session }),
      list,
    );
    expect(other.status).toBe(404);
    const own = await rawHttp(
      served.url,
      "POST",
      headers(tokens.aliceAtA!, { "mcp-session-id": session }),
      list,
    );
    expect(own.status).toBe(200);
  });

  it("a request state minted for carol at one issuer is refused for carol at the other", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    };
    const modern = (token: string, id: number, params: Record<string, unknown>) =>
      rawHttp(
        served.url,
        "POST",
        headers(token, {
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "m__deploy",
        }),
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { ...params, _meta: envelope } }),
      );
    const args = { target: "principal-bound" };
    const first = await modern(tokens.carolAtB!, 10, { name: "m__deploy", arguments: args });
    const state: string = JSON.parse(first.body).result.requestState;
    expect(typeof state).toBe("string");
    const approve = { toolgate_approval: { action: "accept", content: { approve: true } } };
    const retry = { name: "m__deploy", arguments: args, inputResponses: approve, requestState: state };
    const stolen = await modern(tokens.carolAtA!, 11, retry);
    expect(stolen.status).toBe(400);
    expect(JSON.parse(stolen.body).error).toMatchObject({
      code: -32602,
      data: { reason: "invalid_request_state" },
    });
    const own = await modern(tokens.carolAtB!, 12, retry);
    expect(JSON.parse(own.body).result.content[0].text).toBe("deployed principal-bound");
  });
});

describe("start-up refuses what would merge principals or open the dashboard to clients", () => {
  const serve = (files: Record<string, string>, args: string[]) => {
    const cfg = configDir({
      "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
      ...files,
    });
    return runCli(["serve", "--config-dir", cfg, "--http", "0", ...args.map((x) => x.replace("CFG", cfg))]);
  };

  it("two entries with one name: an error naming both lines", async () => {
    const run = await serve(
      {
        "tokens.yaml":
          "- name: alice\n  claims: { scope: admin }\n  role: admin\n- name: alice\n  claims: { scope: read }\n",
      },
      ["--tokens", "CFG/tokens.yaml", "--oauth-issuer", "http://127.0.0.1:9"],
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /tokens\.yaml:4:3: error E_TOKENS_DUPLICATE .*'alice' is already used by the entry at line 1/,
    );
  });

  it("--oauth-issuer with only a static token says how to map OAuth principals", async () => {
    const run = await serve({}, [
      "--token",
      "a-static-token-0123456789",
      "--oauth-issuer",
      "http://127.0.0.1:9",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--oauth-issuer needs its principals mapped");
    expect(run.stderr).toContain("claims: { client_id:");
  });

  it("--dashboard with no entry that may use it says how to grant it, rather than admitting clients", async () => {
    for (const args of [
      ["--token", "a-static-token-0123456789", "--dashboard"],
      ["--tokens", "CFG/tokens.yaml", "--dashboard"],
    ]) {
      const run = await serve({ "tokens.yaml": "- name: bot\n  token: a-static-token-0123456789\n" }, args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--dashboard admits operators, never an MCP client's token");
      expect(run.stderr).toContain("use: [dashboard]");
    }
  });
});
