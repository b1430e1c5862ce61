// /readyz as an orchestrator asks it, on real parts: with --require-server a slow-starting server (a real
// server behind `sh -c "sleep 10; exec …"`) keeps it 503 until its catalog is in, without naming it; a Redis
// state store that goes away makes it 503 and counts the failed operations; wrap --metrics-port counts
// wrap's decisions, the server's time and state.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { connect, EVERYTHING_SERVER, NODE, wrapCommand, writePolicy, tempDir } from "./helpers.js";
import {
  httpClient,
  MEMORY_SERVER,
  rawHttp,
  serveHttp,
  TOKEN,
  until,
  type HttpServe,
} from "./serveHelpers.js";
import { parsePrometheusText, type Exposition } from "../support/promText.js";
import { startRedisServer, type RedisServer } from "../support/redisServer.js";

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
});

const readyz = async (served: HttpServe): Promise<{ status: number; body: Record<string, unknown> }> => {
  const answer = await rawHttp(`${new URL(served.url).origin}/readyz`, "GET", {});
  return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
};

const metricsAt = (stderr: string): string =>
  /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stderr)![1]!;

async function scrape(origin: string): Promise<Exposition> {
  const answer = await rawHttp(`${origin}/metrics`, "GET", {});
  expect(answer.status).toBe(200);
  return parsePrometheusText(answer.body);
}

describe("serve --http --require-server", () => {
  const dir = configDir({
    "mcp.json": mcpJson({
      everything: { command: NODE, args: [EVERYTHING_SERVER] },
      "slow-memory": { command: "sh", args: ["-c", `sleep 10; exec "${NODE}" "${MEMORY_SERVER}"`] },
    }),
    "config.yaml": "enabled_mcp_servers: all\n",
  });

  it("is not ready while a required server starts, without naming it; ready once its catalog is in", async () => {
    const env = { TOOLGATE_TOKEN: TOKEN };
    const [required, plain] = await Promise.all([
      serveHttp(dir, ["--require-server", "slow-memory", "--metrics-port", "0"], env),
      serveHttp(dir, [], env),
    ]);
    stops.push(required.stop, plain.stop);
    const waiting = await readyz(required);
    expect(waiting.status).toBe(503);
    expect(waiting.body).toMatchObject({
      status: "not_ready",
      code: "E_NOT_READY",
      check: "required_server",
    });
    expect(JSON.stringify(waiting.body)).not.toMatch(/slow|memory|sleep/);
    // Without --require-server nothing waits for the slow server.
    expect(await readyz(plain)).toEqual({ status: 200, body: { status: "ready" } });
    const metrics = await scrape(metricsAt(required.stderr()));
    expect(metrics.value("toolgate_upstream_state", { server: "slow-memory", state: "starting" })).toBe(1);
    // The liveness probe answers all along.
    const health = await rawHttp(`${new URL(required.url).origin}/healthz`, "GET", {});
    expect(health.status).toBe(200);

    const started = Date.now();
    await until(async () => (await readyz(required)).status === 200, 60_000);
    // Not before the server could have answered: its start-up sleeps 10 s.
    expect(Date.now() - started).toBeGreaterThan(3000);
    expect((await readyz(required)).body).toEqual({ status: "ready" });
  }, 90_000);

  it("refuses a name mcp.json does not have, before anything listens", async () => {
    const run = await runCli(["serve", "--config-dir", dir, "--http", "0", "--require-server", "nope"], {
      env: { TOOLGATE_TOKEN: TOKEN },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--require-server nope: mcp.json has no server 'nope'");
  });
});

describe("serve --http --state redis://…: readiness follows the state store", () => {
  let redis: RedisServer;

  it("is not ready while Redis is away, counts the operations that failed, and is ready again after", async () => {
    redis = await startRedisServer();
    stops.push(() => redis.stop());
    const dir = configDir({
      "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    // A limit: each call is counted in the state store.
    const policy = writePolicy(
      tempDir(),
      'version: "2.0"\nlimits:\n  max_tool_calls_total: 1000\nenforcement: { unconstrained_tools: allow }\n',
    );
    const served = await serveHttp(dir, ["--state", redis.url, "--policy", policy, "--metrics-port", "0"], {
      TOOLGATE_TOKEN: TOKEN,
      TOOLGATE_STATE_SECRET: "s".repeat(40),
    });
    stops.push(served.stop);
    const origin = metricsAt(served.stderr());
    expect(await readyz(served)).toEqual({ status: 200, body: { status: "ready" } });
    const { client } = await httpClient(served.url, TOKEN);
    stops.push(() => client.close());
    const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "up" } });
    expect(echoed.isError).toBeFalsy();
    expect((await scrape(origin)).value("toolgate_state_store_errors_total")).toBe(0);

    await redis.stop();
    const away = await until(async () => {
      const r = await readyz(served);
      return r.status === 503 ? r : undefined;
    }, 20_000);
    expect(away.body).toMatchObject({ code: "E_NOT_READY", check: "state_store" });
    expect(JSON.stringify(away.body)).not.toContain(String(redis.port));
    const refused = await client.callTool({ name: "everything__echo", arguments: { message: "down" } });
    expect(JSON.stringify(refused)).toContain("E_STATE_UNAVAILABLE");
    const during = await scrape(origin);
    expect(during.value("toolgate_state_store_errors_total")).toBeGreaterThanOrEqual(1);
    expect(during.value("toolgate_decisions_total", { verdict: "deny", code: "E_STATE_UNAVAILABLE" })).toBe(
      1,
    );

    await redis.restart();
    await until(async () => (await readyz(served)).status === 200, 30_000);
  }, 90_000);
});

describe("wrap --metrics-port", () => {
  it("counts wrap's decisions under its label, the server's time and state, and answers /readyz", async () => {
    const policy = writePolicy(
      tempDir(),
      'version: "2.0"\ntools:\n  deny: ["get-env"]\nenforcement: { unconstrained_tools: allow }\n',
    );
    const wrapped = await connect(
      wrapCommand(
        ["--policy", policy, "--label", "everything", "--metrics-port", "0"],
        [NODE, EVERYTHING_SERVER],
      ),
    );
    stops.push(wrapped.close);
    const client: Client = wrapped.client;
    const origin = metricsAt(wrapped.stderr());
    await client.listTools();
    await client.callTool({ name: "echo", arguments: { message: "x" } });
    await client.callTool({ name: "echo", arguments: { message: "y" } });
    await client.callTool({ name: "get-env", arguments: {} }).catch(() => undefined);
    const m = await scrape(origin);
    expect(m.value("toolgate_decisions_total", { verdict: "allow", server: "everything", code: "" })).toBe(2);
    expect(m.sum("toolgate_decisions_total", { verdict: "hidden", code: "E_TOOL_DENIED" })).toBe(2);
    expect(m.value("toolgate_upstream_duration_seconds_count", { server: "everything" })).toBe(2);
    expect(m.value("toolgate_gate_duration_seconds_count", { server: "everything" })).toBe(3);
    expect(m.value("toolgate_upstream_state", { server: "everything", state: "up" })).toBe(1);
    const ready = await rawHttp(`${origin}/readyz`, "GET", {});
    expect(ready.status).toBe(200);
    const nothing = await rawHttp(`${origin}/mcp`, "GET", {});
    expect(nothing.status).toBe(404);
  });
});
