// Two replicas of `toolgate serve --http` with their state in a real Redis, behind a real nginx doing plain
// round robin (no affinity): modern calls spread over both with limits exact across them, an approval spent
// on one refused on the other, two replicas racing for the last allowed call, 2025-era sessions working
// through the round robin (passed to the replica that owns them), Redis going away and coming back, and a
// session whose replica is gone.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, EVERYTHING_SERVER, FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { freePort, startNginx, startRedis, type Running } from "./replicaHelpers.js";
import { rawHttp, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";

const MODERN = "2026-07-28";
const STATE_SECRET = "replica-state-secret-0123456789abcdef";
const APPROVAL_SECRET = "replica-approval-secret-0123456789abcdef";
const TOKENS = {
  spread: "spread-token-0123456789abcdef",
  race: "race-token-0123456789abcdefgh",
  legacy: "legacy-token-0123456789abcdef",
  down: "down-token-0123456789abcdefgh",
};

const dir = tempDir("tg-replicas-");
const config = configDir({
  "mcp.json": mcpJson({
    m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] },
    ev: { command: NODE, args: [EVERYTHING_SERVER] },
  }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "tokens.yaml": Object.entries(TOKENS)
    .map(([name, token]) => `- name: ${name}\n  token: ${token}\n`)
    .join(""),
  "policy.yaml": `version: "2.0"
tools:
  approval_required: ["deploy"]
enforcement: { unconstrained_tools: allow }
limits: { max_tool_calls_total: 6 }
`,
});

let redis: Running;
let nginx: Running;
const replicas: HttpServe[] = [];
const audits = [join(dir, "audit-a.jsonl"), join(dir, "audit-b.jsonl")];

async function replica(auditLog: string, nginxPort: number, redisUrl: string): Promise<HttpServe> {
  return serveHttp(
    config,
    [
      "--tokens",
      join(config, "tokens.yaml"),
      "--policy",
      join(config, "policy.yaml"),
      "--state",
      redisUrl,
      "--audit-log",
      auditLog,
      "--allowed-host",
      `127.0.0.1:${nginxPort}`,
    ],
    { TOOLGATE_STATE_SECRET: STATE_SECRET, TOOLGATE_APPROVAL_SECRET: APPROVAL_SECRET },
  );
}

beforeAll(async () => {
  redis = await startRedis();
  const nginxPort = await freePort();
  replicas.push(
    await replica(audits[0]!, nginxPort, redis.url),
    await replica(audits[1]!, nginxPort, redis.url),
  );
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

async function modern(url: string, token: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "replica-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const callsIn = (file: string, client: string) =>
  readAudit(file).filter((e) => e.event === "tools/call" && e.client === client);

describe("two replicas, Redis, nginx round robin", () => {
  it("spreads a modern client's calls over both replicas, and the limit holds exactly across them", async () => {
    const client = await modern(nginx.url, TOKENS.spread);
    const results = [];
    for (let i = 0; i < 9; i++)
      results.push(await client.callTool({ name: "m__echo", arguments: { message: `n${i}` } }));
    await client.close();
    const allowed = results.filter((r) => r.isError !== true);
    expect(allowed.map(textOf)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Echo: n${i}`));
    for (const refused of results.slice(6)) expect(textOf(refused)).toContain("E_RATE_LIMIT");
    const a = callsIn(audits[0]!, "spread");
    const b = callsIn(audits[1]!, "spread");
    expect(a.length).toBeGreaterThanOrEqual(3);
    expect(b.length).toBeGreaterThanOrEqual(3);
    expect(a.length + b.length).toBe(9);
    expect([...a, ...b].filter((e) => e.decision === "allow")).toHaveLength(6);
  });

  it("an approval spent on one replica is refused on the other", async () => {
    const minted = spawnSync(NODE, [CLI, "approve", "--tool", "deploy", "--approver", "ops"], {
      encoding: "utf8",
      env: { ...process.env, TOOLGATE_APPROVAL_SECRET: APPROVAL_SECRET },
    });
    expect(minted.status, minted.stderr).toBe(0);
    const approval = JSON.parse(minted.stdout) as Record<string, unknown>;
    const [first, second] = [
      await modern(replicas[0]!.url, TOKENS.legacy),
      await modern(replicas[1]!.url, TOKENS.legacy),
    ];
    const call = (c: ModernClient) =>
      c.callTool({ name: "m__deploy", arguments: { target: "prod" }, _meta: { approval } });
    expect(textOf(await call(first))).toBe("deployed prod");
    const again = await call(second);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain("was used before");
    await first.close();
    await second.close();
  });

  it("two replicas racing for the last allowed call: exactly one wins", async () => {
    const [a, b] = [await modern(replicas[0]!.url, TOKENS.race), await modern(replicas[1]!.url, TOKENS.race)];
    for (let i = 0; i < 5; i++)
      await (i % 2 === 0 ? a : b).callTool({ name: "m__echo", arguments: { message: "warm" } });
    const raced = await Promise.all(
      [a, b, a, b].map((c, i) => c.callTool({ name: "m__echo", arguments: { message: `race${i}` } })),
    );
    expect(raced.filter((r) => r.isError !== true)).toHaveLength(1);
    expect(raced.filter((r) => textOf(r).includes("E_RATE_LIMIT"))).toHaveLength(3);
    await a.close();
    await b.close();
  });

  it("a 2025-era session works through the round robin: requests that land on the other replica are passed to its owner", async () => {
    const client = new LegacyClient({ name: "legacy-e2e", version: "1.0.0" });
    const transport = new LegacyHttp(new URL(nginx.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKENS.legacy}` } },
    });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    for (let i = 0; i < 4; i++) {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain("m__echo");
    }
    // Which replica owns it: the one whose log recorded the lists; the other passed them on.
    const owners = audits.filter((file) => readAudit(file).some((e) => e.session === sessionId));
    expect(owners).toHaveLength(1);
    await client.close();
  });

  it("a session whose replica died is answered 404 by the other, so the client opens a new one", async () => {
    const extra = await replica(join(dir, "audit-extra.jsonl"), nginx.port, redis.url);
    const init = await rawHttp(extra.url, "POST", legacyHeaders(TOKENS.legacy), JSON.stringify(initialize));
    expect(init.status).toBe(200);
    const sessionId = String(init.headers["mcp-session-id"]);
    // Killed, not stopped: it never says it is gone, so the directory still names it.
    extra.proc.kill("SIGKILL");
    await until(() => extra.proc.exitCode !== null || extra.proc.signalCode !== null);
    const orphan = await rawHttp(
      replicas[1]!.url,
      "POST",
      { ...legacyHeaders(TOKENS.legacy), "mcp-session-id": sessionId },
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    );
    expect(orphan.status).toBe(404);
    // Its stderr may arrive just after the answer.
    await until(() => replicas[1]!.stderr().includes(`session ${sessionId}: its replica`));
  });

  it("Redis away: calls that need it are refused with E_STATE_UNAVAILABLE, said once; back: they succeed", async () => {
    const client = await modern(replicas[0]!.url, TOKENS.down);
    expect(textOf(await client.callTool({ name: "m__echo", arguments: { message: "before" } }))).toBe(
      "Echo: before",
    );
    const port = redis.port;
    await redis.stop();
    const refused = await client.callTool({ name: "m__echo", arguments: { message: "away" } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("E_STATE_UNAVAILABLE");
    await client.callTool({ name: "m__echo", arguments: { message: "away again" } });
    const saidUnreachable = () => replicas[0]!.stderr().match(/is unreachable \(/g)?.length ?? 0;
    await until(() => saidUnreachable() >= 1);
    expect(saidUnreachable()).toBe(1);
    redis = await startRedis(port);
    const back = await until(async () => {
      const r = await client.callTool({ name: "m__echo", arguments: { message: "back" } });
      return r.isError === true ? undefined : r;
    }, 15_000);
    expect(textOf(back)).toBe("Echo: back");
    await until(() => replicas[0]!.stderr().includes("is reachable again"));
    const events = callsIn(audits[0]!, "down").filter((e) => e.code === "E_STATE_UNAVAILABLE");
    expect(events.length).toBeGreaterThanOrEqual(2);
    await client.close();
  }, 40_000);
});

describe("a replica started while Redis is down", () => {
  it("starts, says so, refuses what needs the state, and serves once Redis is there", async () => {
    const port = await freePort();
    const late = await replica(join(dir, "audit-late.jsonl"), nginx.port, `redis://127.0.0.1:${port}`);
    try {
      await until(() => late.stderr().includes("is unreachable ("));
      const client = await modern(late.url, TOKENS.down);
      const refused = await client.callTool({ name: "m__echo", arguments: { message: "early" } });
      expect(textOf(refused)).toContain("E_STATE_UNAVAILABLE");
      const store = await startRedis(port);
      try {
        const served = await until(async () => {
          const r = await client.callTool({ name: "m__echo", arguments: { message: "late" } });
          return r.isError === true ? undefined : r;
        }, 15_000);
        expect(textOf(served)).toBe("Echo: late");
      } finally {
        await client.close();
        await store.stop();
      }
    } finally {
      await late.stop();
    }
  }, 40_000);
});

describe("each replica's own audit log", () => {
  it("toolgate audit verify checks the set: every chain holds; one broken line fails the set", () => {
    const verify = (files: string[]) =>
      spawnSync(NODE, [CLI, "audit", "verify", ...files], { encoding: "utf8" });
    const ok = verify(audits);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.split("\n").filter((l) => l.includes(": OK, "))).toHaveLength(2);
    const tampered = join(dir, "audit-b-tampered.jsonl");
    const lines = readFileSync(audits[1]!, "utf8").split("\n");
    lines[1] = lines[1]!.replace('"decision":"allow"', '"decision":"deny"');
    writeFileSync(tampered, lines.join("\n"));
    const broken = verify([audits[0]!, tampered]);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(`${tampered}: BROKEN at line 2`);
  });
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function legacyHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
}

describe("a replica killed mid-call", () => {
  it("the client gets a clean error, and the call is not run again on the other replica", async () => {
    const client = await modern(nginx.url, TOKENS.legacy);
    const call = client.callTool({
      name: "ev__trigger-long-running-operation",
      arguments: { duration: 4, steps: 4 },
    });
    const outcome = call.then(
      (result) => ({ result }),
      (error: unknown) => ({ error: String(error) }),
    );
    // The replica that took it recorded the call before forwarding it.
    const busy = await until(() =>
      [0, 1].find((i) =>
        readAudit(audits[i]!).some(
          (e) => e.event === "tools/call" && e.tool === "trigger-long-running-operation",
        ),
      ),
    );
    replicas[busy]!.proc.kill("SIGKILL");
    const ended = await outcome;
    expect("error" in ended || ended.result.isError === true).toBe(true);
    const other = readAudit(audits[1 - busy]!).filter((e) => e.tool === "trigger-long-running-operation");
    expect(other).toEqual([]);
    await client.close().catch(() => {});
  }, 40_000);
});
