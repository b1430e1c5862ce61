// Readiness and the operator's endpoints, on a real node:http listener: /healthz always, /readyz with which
// check failed (never a server's name), /metrics behind its bearer token, absent without one.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerOps, bearerMatches, type OpsEndpoints } from "../../../src/ops/opsRoutes.js";
import { Readiness } from "../../../src/ops/readiness.js";

const METRICS = { contentType: "text/plain; version=0.0.4; charset=utf-8", metricsText: async () => "x 1\n" };

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
  server = null;
});

async function serve(ops: OpsEndpoints): Promise<number> {
  server = createServer((req, res) => {
    if (!answerOps(req, res, ops)) res.writeHead(404).end("not ops");
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method, headers, agent: false }, (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("Readiness", () => {
  const checks = (over: Partial<ConstructorParameters<typeof Readiness>[0]> = {}) => ({
    stateStore: async () => true,
    requiredServers: [] as string[],
    hasCatalog: () => false,
    ...over,
  });

  it("is not ready before the configuration is loaded, then ready, then not while draining", async () => {
    const r = new Readiness(checks());
    expect(await r.check()).toMatchObject({ ready: false, check: "configuration" });
    r.setConfigured();
    expect(await r.check()).toEqual({ ready: true });
    r.setDraining();
    expect(r.draining).toBe(true);
    expect(await r.check()).toMatchObject({ ready: false, check: "draining" });
  });

  it("fails on a state store that does not answer, or throws", async () => {
    const r = new Readiness(checks({ stateStore: async () => false }));
    r.setConfigured();
    expect(await r.check()).toMatchObject({ ready: false, check: "state_store" });
    const t = new Readiness(
      checks({ stateStore: () => Promise.reject(new Error("ECONNREFUSED redis:6379")) }),
    );
    t.setConfigured();
    const answer = await t.check();
    expect(answer).toMatchObject({ ready: false, check: "state_store" });
    expect(JSON.stringify(answer)).not.toContain("redis");
  });

  it("waits for every required server's catalog without naming any", async () => {
    const have = new Set<string>();
    const r = new Readiness(
      checks({ requiredServers: ["secret-db", "files"], hasCatalog: (s) => have.has(s) }),
    );
    r.setConfigured();
    const two = await r.check();
    expect(two).toMatchObject({ ready: false, check: "required_server" });
    expect(JSON.stringify(two)).not.toMatch(/secret-db|files/);
    have.add("files");
    const one = await r.check();
    expect(one).toMatchObject({ reason: expect.stringContaining("a required server is not ready") });
    expect(JSON.stringify(one)).not.toContain("secret-db");
    have.add("secret-db");
    expect(await r.check()).toEqual({ ready: true });
  });
});

describe("the operator's endpoints", () => {
  it("answer /healthz and /readyz without credentials, 405 to other methods", async () => {
    const readiness = new Readiness({
      stateStore: async () => true,
      requiredServers: [],
      hasCatalog: () => true,
    });
    const port = await serve({ readiness, metrics: METRICS, metricsToken: null });
    expect(await get(port, "/healthz")).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const before = await get(port, "/readyz");
    expect(before.status).toBe(503);
    expect(JSON.parse(before.body)).toMatchObject({ code: "E_NOT_READY", check: "configuration" });
    readiness.setConfigured();
    expect(await get(port, "/readyz?verbose=1")).toMatchObject({ status: 200 });
    expect((await get(port, "/healthz", {}, "POST")).status).toBe(405);
    // No token given: /metrics is not on this port at all.
    expect(await get(port, "/metrics")).toMatchObject({ status: 404, body: "not ops" });
  });

  it("serve /metrics to its bearer token only when one is set, and to anyone on its own listener", async () => {
    const token = "metrics-token-0123456789";
    let port = await serve({ readiness: null, metrics: METRICS, metricsToken: token });
    const none = await get(port, "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toContain("Bearer");
    expect(JSON.parse(none.body).code).toBe("E_METRICS_TOKEN");
    expect((await get(port, "/metrics", { authorization: `Bearer ${token}x` })).status).toBe(401);
    const ok = await get(port, "/metrics", { authorization: `Bearer ${token}` });
    expect(ok).toMatchObject({ status: 200, body: "x 1\n" });
    expect(ok.headers["content-type"]).toBe(METRICS.contentType);
    // No readiness here: /readyz is not this listener's.
    expect((await get(port, "/readyz")).status).toBe(404);
    server!.close();
    server = null;
    port = await serve({ readiness: null, metrics: METRICS, metricsToken: undefined });
    expect(await get(port, "/metrics")).toMatchObject({ status: 200, body: "x 1\n" });
  });

  it("compares bearer tokens whole", () => {
    expect(bearerMatches("Bearer abc", "abc")).toBe(true);
    expect(bearerMatches("bearer abc", "abc")).toBe(true);
    expect(bearerMatches("Bearer abcd", "abc")).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
    expect(bearerMatches(undefined, "abc")).toBe(false);
    expect(bearerMatches("Basic abc", "abc")).toBe(false);
  });
});
