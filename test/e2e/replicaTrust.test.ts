// Two replicas of `serve --http` on a real Redis behind a real nginx (plain round robin), with a short
// idle timeout (4 s): a 2025-era call forwarded to its owner gets its answer however long it runs (15 s,
// past the 10 s the forwarder waits for the owner to answer at all), and the owner's record in Redis stays
// while the call runs past the idle timeout; replicas follow only ownership records signed with
// TOOLGATE_STATE_SECRET (a record written straight into Redis, pointing at a listener of this test, is never
// followed: that listener receives nothing), and a client's own hop header changes nothing.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { EVERYTHING_SERVER, NODE, readAudit, tempDir } from "./helpers.js";
import { freePort, startNginx, startRedis, type Running } from "./replicaHelpers.js";
import { rawHttp, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";

const STATE_SECRET = "replica-trust-state-secret-0123456789abcdef";
const TOKEN = "replica-trust-token-0123456789abcdef";
const IDLE_SECONDS = 4;
const LONG_CALL_SECONDS = 15;

const dir = tempDir("tg-replica-trust-");
const config = configDir({
  "mcp.json": mcpJson({ ev: { command: NODE, args: [EVERYTHING_SERVER] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "tokens.yaml": `- name: client\n  token: ${TOKEN}\n`,
  "policy.yaml": `version: "2.0"\nenforcement: { unconstrained_tools: allow }\n`,
});

let redis: Running;
let nginx: Running;
const replicas: HttpServe[] = [];
const audits = [join(dir, "audit-a.jsonl"), join(dir, "audit-b.jsonl")];

beforeAll(async () => {
  redis = await startRedis();
  const nginxPort = await freePort();
  for (const audit of audits) {
    replicas.push(
      await serveHttp(
        config,
        [
          "--tokens",
          join(config, "tokens.yaml"),
          "--policy",
          join(config, "policy.yaml"),
          "--state",
          redis.url,
          "--audit-log",
          audit,
          "--session-idle-timeout",
          String(IDLE_SECONDS),
          "--allowed-host",
          `127.0.0.1:${nginxPort}`,
        ],
        { TOOLGATE_STATE_SECRET: STATE_SECRET },
      ),
    );
  }
  nginx = await startNginx(
    replicas.map((r) => new URL(r.url).host),
    { port: nginxPort },
  );
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  for (const r of replicas) await r.stop();
  await redis?.stop();
});

function redisCli(...args: string[]): string {
  const run = spawnSync("redis-cli", ["-p", String(redis.port), ...args], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}

const recordKey = (sessionId: string) => `toolgate:session:${sessionId}`;

/** The replica a session's record names (its origin), read from Redis. */
function ownerOf(sessionId: string): string {
  const record = redisCli("GET", recordKey(sessionId));
  const owner = /^tgo1 (http:\/\/127\.0\.0\.1:\d+) \S+$/.exec(record)?.[1];
  if (owner === undefined) throw new Error(`no signed record for ${sessionId}: '${record}'`);
  return owner;
}

const replicaAt = (origin: string) => replicas.findIndex((r) => new URL(r.url).origin === origin);

function legacyHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    ...extra,
  };
}

/** A 2025-era session opened with raw requests on `url`: its id. */
async function openSession(url: string): Promise<string> {
  const init = await rawHttp(
    url,
    "POST",
    legacyHeaders(),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  );
  expect(init.status).toBe(200);
  const sessionId = String(init.headers["mcp-session-id"]);
  const initialized = await rawHttp(
    url,
    "POST",
    legacyHeaders({ "mcp-session-id": sessionId }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  );
  expect(initialized.status).toBe(202);
  return sessionId;
}

const toolsList = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("replicas forward 2025-era requests to their owner, and only to a proven one", () => {
  it(`a ${LONG_CALL_SECONDS} s call forwarded to its owner completes; its record stays while it runs past the idle timeout`, async () => {
    // The SDK client opens its session through nginx; every later request goes to the replica that does
    // not own it, so each one is passed to the owner.
    let owner = "";
    const client = new LegacyClient({ name: "replica-trust-e2e", version: "1.0.0" });
    const transport = new LegacyHttp(new URL(nginx.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      fetch: (url, init) => {
        const sessionId = new Headers(init?.headers).get("mcp-session-id");
        if (sessionId === null) return fetch(url, init);
        if (owner === "") owner = ownerOf(sessionId);
        return fetch(replicas[1 - replicaAt(owner)]!.url, init);
      },
    });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    const ownerIndex = replicaAt(ownerOf(sessionId));
    expect(ownerIndex).toBeGreaterThanOrEqual(0);

    const started = Date.now();
    const call = client.callTool(
      { name: "ev__trigger-long-running-operation", arguments: { duration: LONG_CALL_SECONDS, steps: 3 } },
      undefined,
      { timeout: 120_000 },
    );
    let answered = false;
    void call.then(() => (answered = true)).catch(() => undefined);
    // Past the idle timeout and past a record's own lifetime (idle + a third), with no request since the
    // call: the owner renews it because the session is busy.
    await sleep(IDLE_SECONDS * 2000 + 1000);
    expect(answered).toBe(false);
    expect(ownerOf(sessionId)).toBe(new URL(replicas[ownerIndex]!.url).origin);
    expect(Number(redisCli("PTTL", recordKey(sessionId)))).toBeGreaterThan(0);

    const result = await call;
    expect(textOf(result)).toContain(
      `Long running operation completed. Duration: ${LONG_CALL_SECONDS} seconds`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(LONG_CALL_SECONDS * 1000);
    // The owner ran it; the other replica only passed it on, and never took the owner for gone.
    const ran = (i: number) =>
      readAudit(audits[i]!).filter((e) => e.event === "tools/call" && e.session === sessionId);
    expect(ran(ownerIndex)).toHaveLength(1);
    expect(ran(1 - ownerIndex)).toEqual([]);
    expect(replicas[1 - ownerIndex]!.stderr()).not.toContain(`session ${sessionId}: its replica`);
    await client.close().catch(() => undefined);
  }, 90_000);

  it("a record written straight into Redis is never followed: 404, a line on stderr, and its listener receives nothing", async () => {
    let connections = 0;
    let received = "";
    const listener: Server = createServer((socket) => {
      connections++;
      socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    const trap = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
    try {
      // A real record's signature, moved onto the trap's URL, does not verify either.
      const genuine = await openSession(replicas[0]!.url);
      const signature = redisCli("GET", recordKey(genuine)).split(" ")[2]!;
      const forged = [trap, `tgo1 ${trap} ${"A".repeat(43)}`, `tgo1 ${trap} ${signature}`];
      for (const [i, record] of forged.entries()) {
        const sessionId = randomUUID();
        expect(redisCli("SET", recordKey(sessionId), record, "PX", "60000")).toBe("OK");
        for (const url of [nginx.url, ...replicas.map((r) => r.url)]) {
          const answer = await rawHttp(
            url,
            "POST",
            legacyHeaders({ "mcp-session-id": sessionId }),
            toolsList(i),
          );
          expect(answer.status).toBe(404);
          expect(JSON.parse(answer.body)).toMatchObject({
            error: { code: -32001, message: "Session not found" },
          });
        }
        for (const r of replicas) {
          await until(() =>
            r.stderr().includes(`session ${sessionId}: its ownership record in the state is not followed`),
          );
        }
      }
      // Whatever a connection might have brought, and the client's token above all, never came.
      await sleep(500);
      expect(connections).toBe(0);
      expect(received).not.toContain(TOKEN);
      expect(received).toBe("");
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });

  it("a client's own hop header changes nothing: the request is still passed to the owner, and served", async () => {
    const sessionId = await openSession(replicas[0]!.url);
    expect(replicaAt(ownerOf(sessionId))).toBe(0);
    const fakes = ["1", `tgh1.${Date.now()}.${"A".repeat(43)}`];
    for (const [i, hop] of fakes.entries()) {
      for (const r of replicas) {
        const answer = await rawHttp(
          r.url,
          "POST",
          legacyHeaders({ "mcp-session-id": sessionId, "x-toolgate-replica-hop": hop }),
          toolsList(10 + i),
        );
        expect(answer.status, answer.body).toBe(200);
        expect(answer.body).toContain("trigger-long-running-operation");
      }
    }
    await until(() =>
      replicas[1]!.stderr().includes(`session ${sessionId}: a request carried a replica hop header`),
    );
  });
});
