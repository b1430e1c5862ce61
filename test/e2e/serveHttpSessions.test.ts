// toolgate serve --http, its session table: a token may hold only its share of the sessions; a full quota is
// freed by evicting the idlest session nobody uses (no open stream, no request in progress), whose client
// then gets 404; sessions in use are never evicted (429 / 503 instead). Ending a session (DELETE, eviction)
// ends toolgate's own session with each HTTP upstream. An Origin naming the gateway itself is accepted.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { request, type ClientRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCatalogServer } from "../fixtures/servers/catalogServer.mjs";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { serveStatefulHttp, type StatefulHttpFixture } from "./httpFixture.js";
import { httpClient, rawHttp, serveHttp, type HttpServe } from "./serveHelpers.js";

const ALICE = "alice-token-0123456789abc";
const BOB = "bob-token-0123456789abcdef";

let upstream: StatefulHttpFixture;
let dir: string;
const running: HttpServe[] = [];
const streams: ClientRequest[] = [];

beforeAll(async () => {
  upstream = await serveStatefulHttp(() => createCatalogServer(["get_issue", "list_issues"]));
  dir = configDir({
    "mcp.json": mcpJson({ remote: { type: "http", url: upstream.url } }),
    "config.yaml": "enabled_mcp_servers: all\n",
  });
  writeFileSync(join(dir, "tokens.yaml"), `- name: alice\n  token: ${ALICE}\n- name: bob\n  token: ${BOB}\n`);
});

afterAll(async () => {
  for (const s of streams) s.destroy();
  for (const s of running) await s.stop();
  await upstream?.close();
});

async function serve(args: string[]): Promise<HttpServe> {
  const s = await serveHttp(dir, args);
  running.push(s);
  return s;
}

const headers = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra,
});
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

/** A raw session: initialize (and initialized); its id. */
async function open(s: HttpServe, token: string): Promise<string> {
  const answer = await rawHttp(s.url, "POST", headers(token), initialize);
  expect(answer.status).toBe(200);
  const id = answer.headers["mcp-session-id"] as string;
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  expect((await rawHttp(s.url, "POST", headers(token, { "mcp-session-id": id }), initialized)).status).toBe(
    202,
  );
  return id;
}

const listStatus = async (s: HttpServe, token: string, id: string) =>
  (await rawHttp(s.url, "POST", headers(token, { "mcp-session-id": id }), list)).status;

/** Holds the session's GET event stream open (so the session is in use) until the test ends. */
function holdStream(s: HttpServe, token: string, id: string): Promise<void> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "GET",
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", "mcp-session-id": id },
        agent: false,
      },
      (res) => (res.statusCode === 200 ? resolve() : reject(new Error(`GET answered ${res.statusCode}`))),
    );
    req.on("error", () => {});
    req.end();
    streams.push(req);
  });
}

describe("serve --http: sessions per token", () => {
  let s: HttpServe;
  beforeAll(async () => {
    s = await serve(["--tokens", join(dir, "tokens.yaml"), "--max-sessions", "4"]);
  });

  it("a token at its share evicts its own idlest unused session; that client gets 404, the others go on", async () => {
    const first = await open(s, ALICE);
    const second = await open(s, ALICE);
    const third = await open(s, ALICE);
    expect(await listStatus(s, ALICE, first)).toBe(404);
    expect(await listStatus(s, ALICE, second)).toBe(200);
    expect(await listStatus(s, ALICE, third)).toBe(200);
    expect(s.stderr()).toMatch(
      new RegExp(
        `session ${first} \\(alice\\) evicted, idle \\d+ s without an open stream: alice is at --max-sessions-per-token 2`,
      ),
    );
    // The other token's share is untouched.
    const bob = await open(s, BOB);
    expect(await listStatus(s, BOB, bob)).toBe(200);
  });

  it("sessions in use are never evicted: the token gets 429, naming the quota", async () => {
    const a = await open(s, ALICE);
    const b = await open(s, ALICE);
    await holdStream(s, ALICE, a);
    await holdStream(s, ALICE, b);
    const refused = await rawHttp(s.url, "POST", headers(ALICE), initialize);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      id: 1,
      error: {
        message: expect.stringContaining("alice has 2 sessions open and in use (--max-sessions-per-token 2)"),
      },
    });
    expect(await listStatus(s, ALICE, a)).toBe(200);
  });
});

describe("serve --http: a full gateway", () => {
  it("evicts the idlest session abandoned without DELETE (SDK close), and 503 only when all are in use", async () => {
    const s = await serve(["--token", ALICE, "--max-sessions", "2"]);
    const abandoned = await httpClient(s.url, ALICE);
    const abandonedId = abandoned.transport.sessionId!;
    await abandoned.client.close(); // the SDK client sends no DELETE: its session stays open
    const idle = await open(s, ALICE);
    const fresh = await httpClient(s.url, ALICE);
    expect((await fresh.client.listTools()).tools.map((t) => t.name)).toEqual([
      "remote__get_issue",
      "remote__list_issues",
    ]);
    expect(await listStatus(s, ALICE, abandonedId)).toBe(404);
    expect(await listStatus(s, ALICE, idle)).toBe(200);
    // Both are in use now (the SDK client keeps its stream; the raw one gets one): nothing to evict.
    await holdStream(s, ALICE, idle);
    const refused = await rawHttp(s.url, "POST", headers(ALICE), initialize);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toContain(
      "2 sessions are open and in use (--max-sessions 2)",
    );
    await fresh.client.close();
  });
});

describe("serve --http: ending a session ends toolgate's sessions with HTTP servers", () => {
  it("DELETE from the client sends DELETE for toolgate's own session upstream", async () => {
    const s = await serve(["--token", ALICE]);
    const before = upstream.opened.length;
    const c = await httpClient(s.url, ALICE);
    await c.client.listTools();
    const mine = upstream.opened.slice(before);
    expect(mine.length).toBeGreaterThan(0);
    expect(upstream.deleted.filter((id) => mine.includes(id))).toEqual([]);
    await c.transport.terminateSession();
    await expect
      .poll(() => upstream.deleted.filter((id) => mine.includes(id)).sort(), { timeout: 5000 })
      .toEqual([...mine].sort());
    await c.client.close();
  });
});

describe("serve --http: the gateway's own origin", () => {
  it("accepts an Origin equal to an accepted Host over http, and nothing else unlisted", async () => {
    const s = await serve(["--token", ALICE]);
    const port = new URL(s.url).port;
    for (const [host, origin, status] of [
      [`localhost:${port}`, `http://localhost:${port}`, 200],
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}/`, 200],
      [`localhost:${port}`, `http://localhost:${Number(port) + 1}`, 403],
      [`localhost:${port}`, `https://localhost:${port}`, 403],
      [`localhost:${port}`, `http://evil.example:${port}`, 403],
      [`localhost:${port}`, "null", 403],
    ] as const) {
      const answer = await rawHttp(s.url, "POST", headers(ALICE, { host, origin }), initialize);
      expect([origin, answer.status]).toEqual([origin, status]);
    }
  });
});
