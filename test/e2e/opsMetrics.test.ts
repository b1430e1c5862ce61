// serve --http as an operator runs it, against real servers (everything, filesystem, memory) and the SDK
// client: /metrics scraped and parsed strictly as Prometheus text moves by exactly the calls made (allowed,
// denied, hidden, and the tools lists hid), on its own --metrics-port and on the gateway's port behind
// --metrics-token; /healthz and /readyz answer without credentials; the dashboard's status page shows the
// same counters to a signed-in operator.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAudit, tempDir } from "./helpers.js";
import {
  httpClient,
  rawHttp,
  serveHttp,
  serveWorld,
  type HttpServe,
  type ServeWorld,
} from "./serveHelpers.js";
import { parsePrometheusText, type Exposition } from "../support/promText.js";

const CLIENT = "ops-client-token-0123456789";
const OPERATOR = "ops-operator-token-0123456789";
const METRICS = "ops-metrics-token-0123456789";

let world: ServeWorld;
let served: HttpServe;
let auditLog: string;
let metricsOrigin: string;
let gateway: string;
const clients: Client[] = [];

beforeAll(async () => {
  world = serveWorld({
    files: {
      "tokens.yaml": [
        "- name: agent",
        `  token: ${CLIENT}`,
        "- name: oncall",
        `  token: ${OPERATOR}`,
        "  use: [dashboard]",
        "",
      ].join("\n"),
    },
  });
  // Written once the directory server-filesystem serves is known: reading is scoped to a part of it.
  writeFileSync(
    join(world.dir, "policy.yaml"),
    [
      'version: "2.0"',
      "tools:",
      '  deny: ["get-env"]',
      '  restrict_scope: ["read_text_file"]',
      `  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${join(world.fsRoot, "inside")}", scope_match_mode: prefix }`,
      "enforcement: { unconstrained_tools: allow }",
      "",
    ].join("\n"),
  );
  auditLog = join(tempDir(), "audit.jsonl");
  served = await serveHttp(world.dir, [
    "--tokens",
    join(world.dir, "tokens.yaml"),
    "--policy",
    join(world.dir, "policy.yaml"),
    "--audit-log",
    auditLog,
    "--dashboard",
    "--metrics-port",
    "0",
    "--metrics-token",
    METRICS,
  ]);
  metricsOrigin = /metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(served.stderr())![1]!;
  gateway = new URL(served.url).origin;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await served?.stop();
});

async function scrape(origin = metricsOrigin, headers: Record<string, string> = {}): Promise<Exposition> {
  const answer = await rawHttp(`${origin}/metrics`, "GET", headers);
  expect(answer.status).toBe(200);
  expect(answer.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(answer.body);
}

const decisions = (m: Exposition, labels: Record<string, string>): number =>
  m.sum("toolgate_decisions_total", labels);

describe("serve --http /metrics", () => {
  it("moves by exactly the decisions the calls and lists made", async () => {
    const before = await scrape();
    const { client } = await httpClient(served.url, CLIENT);
    clients.push(client);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("everything__echo");
    expect(listed).not.toContain("everything__get-env");
    for (const message of ["a", "b", "c"]) {
      await client.callTool({ name: "everything__echo", arguments: { message } });
    }
    const outside = join(world.fsRoot, "hello.txt");
    for (let i = 0; i < 2; i++) {
      const denied = await client.callTool({ name: "fs__read_text_file", arguments: { path: outside } });
      expect(denied.isError).toBe(true);
    }
    await client.callTool({ name: "everything__get-env", arguments: {} });
    const after = await scrape();

    const events = readAudit(auditLog);
    const calls = events.filter((e) => e.event === "tools/call");
    const denyCode = calls.find((e) => e.decision === "deny")!.code as string;
    const listHidden = events
      .filter((e) => e.event === "tools/list")
      .reduce((n, e) => n + (e.hidden as number), 0);
    expect(listHidden).toBeGreaterThan(0);
    const moved = (labels: Record<string, string>): number =>
      decisions(after, labels) - decisions(before, labels);
    expect(moved({ verdict: "allow", server: "everything", code: "" })).toBe(3);
    expect(moved({ verdict: "allow" })).toBe(3);
    expect(moved({ verdict: "deny", server: "fs", code: denyCode })).toBe(2);
    expect(moved({ verdict: "deny" })).toBe(2);
    expect(moved({ verdict: "hidden", server: "everything", code: "E_TOOL_DENIED" })).toBeGreaterThanOrEqual(
      1,
    );
    // Every hidden decision: one per tool a list hid, and the call to a hidden tool.
    expect(moved({ verdict: "hidden" })).toBe(listHidden + 1);
    expect(calls.filter((e) => e.decision === "hidden")).toHaveLength(1);

    const count = (m: Exposition, name: string, server: string): number => m.sum(name, { server });
    const gate = "toolgate_gate_duration_seconds_count";
    const upstream = "toolgate_upstream_duration_seconds_count";
    expect(count(after, gate, "everything") - count(before, gate, "everything")).toBe(4);
    expect(count(after, gate, "fs") - count(before, gate, "fs")).toBe(2);
    expect(count(after, upstream, "everything") - count(before, upstream, "everything")).toBe(3);
    expect(count(after, upstream, "fs") - count(before, upstream, "fs")).toBe(0);
    // The server answered three echoes: its time is in its own histogram, toolgate's in the other.
    expect(after.sum("toolgate_upstream_duration_seconds_sum", { server: "everything" })).toBeGreaterThan(0);

    expect(after.value("toolgate_upstream_state", { server: "everything", state: "up" })).toBe(1);
    expect(after.value("toolgate_upstream_state", { server: "fs", state: "up" })).toBe(1);
    expect(after.value("toolgate_sessions", { era: "legacy" })).toBeGreaterThanOrEqual(1);
    expect(after.value("toolgate_approvals_waiting")).toBe(0);
    expect(after.value("toolgate_state_store_errors_total")).toBe(0);
    expect(after.value("toolgate_reloads_total", { result: "applied" })).toBe(0);
    expect(after.types.get("process_resident_memory_bytes")).toBe("gauge");
  });

  it("is on the gateway's port only to the metrics token (401 otherwise), and the same registry", async () => {
    const none = await rawHttp(`${gateway}/metrics`, "GET", {});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ code: "E_METRICS_TOKEN" });
    const client = await rawHttp(`${gateway}/metrics`, "GET", { authorization: `Bearer ${CLIENT}` });
    expect(client.status).toBe(401);
    const ownPort = await scrape();
    const viaGateway = await scrape(gateway, { authorization: `Bearer ${METRICS}` });
    expect(viaGateway.sum("toolgate_decisions_total", { verdict: "allow" })).toBe(
      ownPort.sum("toolgate_decisions_total", { verdict: "allow" }),
    );
  });

  it("answers /healthz and /readyz without a token, whatever Host is sent, naming nothing", async () => {
    for (const origin of [gateway, metricsOrigin]) {
      const health = await rawHttp(`${origin}/healthz`, "GET", { host: "kubelet.probe:8080" });
      expect(health).toMatchObject({ status: 200 });
      expect(JSON.parse(health.body)).toEqual({ status: "ok" });
      const ready = await rawHttp(`${origin}/readyz`, "GET", {});
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.body)).toEqual({ status: "ready" });
    }
    // Everything else on the gateway's port still checks Host.
    const mcp = await rawHttp(served.url, "POST", { host: "kubelet.probe:8080" }, "{}");
    expect(mcp.status).toBe(403);
  });
});

describe("serve --http --dashboard: the status page", () => {
  it("shows a signed-in operator each server's state, sessions by era and the decisions", async () => {
    const login = await rawHttp(`${gateway}/ui/login`, "GET", {});
    const nonce = /tg_login=([^;]+)/.exec(String(login.headers["set-cookie"]))![1]!;
    const signedIn = await rawHttp(
      `${gateway}/ui/login`,
      "POST",
      {
        origin: gateway,
        cookie: `tg_login=${nonce}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      new URLSearchParams({ csrf: nonce, token: OPERATOR }).toString(),
    );
    expect(signedIn.status).toBe(303);
    const session = /tg_dashboard=([^;]+)/.exec(String(signedIn.headers["set-cookie"]))![1]!;
    const page = await rawHttp(`${gateway}/ui/status`, "GET", { cookie: `tg_dashboard=${session}` });
    expect(page.status).toBe(200);
    const metrics = await scrape();
    const cell = (id: string): string => new RegExp(`id="${id}">([^<]*)<`).exec(page.body)?.[1] ?? "";
    expect(Number(cell("decisions-total"))).toBe(metrics.sum("toolgate_decisions_total"));
    expect(Number(cell("sessions-legacy"))).toBe(metrics.value("toolgate_sessions", { era: "legacy" }));
    expect(Number(cell("decisions-per-minute"))).toBeGreaterThan(0);
    expect(cell("approvals-waiting")).toBe("0");
    expect(page.body).toMatch(
      /<tr data-server="everything">\s*<td class="mono">everything<\/td>\s*<td class="state">up<\/td>/,
    );
    // Signed out: the sign-in page, no figures.
    const anonymous = await rawHttp(`${gateway}/ui/status`, "GET", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).not.toContain("decisions-total");
  });
});
