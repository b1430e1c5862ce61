// The per-session connection to one server: opened on first need and reused, reopened with exponential
// backoff after a failure, failing fast (never waiting) while down.
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpServerConfig } from "../../../src/engine/model/mcpServers.js";
import type { Upstream, UpstreamOptions } from "../../../src/upstream/upstream.js";
import { allowAllGate } from "../../../src/engine/policy/policyGate.js";
import { GatewaySession } from "../../../src/serve/gatewaySession.js";
import { UpstreamLink, UpstreamUnavailable } from "../../../src/upstream/upstreamLink.js";
import { fakeConnect, stdioConfig } from "../serve/fakeUpstream.js";
import { linkedPair } from "../serve/inMemory.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` holds (timing on a shared machine varies; the assertions are about order, not speed). */
async function until(probe: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(10);
  }
}

function link(connect: (c: McpServerConfig, o: UpstreamOptions) => Promise<Upstream>, logs: string[] = []) {
  return new UpstreamLink({
    server: stdioConfig("srv"),
    connect,
    capabilities: () => ({}),
    timeoutMs: 1000,
    backoff: { initialMs: 40, maxMs: 160, stableMs: 10_000 },
    hooks: { setup: () => {}, onUp: () => {}, onDown: () => {}, log: (l) => logs.push(l) },
  });
}

describe("UpstreamLink", () => {
  it("connects once and reuses the connection", async () => {
    let connects = 0;
    const base = fakeConnect({ tools: { srv: ["a"] }, executed: [] });
    const l = link((c, o) => {
      connects++;
      return base(c, o);
    });
    const [a, b] = await Promise.all([l.ready(), l.ready()]);
    expect(a).toBe(b);
    expect(await l.ready()).toBe(a);
    expect([...(await l.tools()).tools.keys()]).toEqual(["a"]);
    expect(connects).toBe(1);
    await l.close();
  });

  it("fails fast while down and retries with doubling delays", async () => {
    let attempts = 0;
    const base = fakeConnect({ tools: { srv: [] }, executed: [] });
    const logs: string[] = [];
    const l = link((c, o) => {
      attempts++;
      return attempts <= 3 ? Promise.reject(new Error(`refused #${attempts}`)) : base(c, o);
    }, logs);
    await expect(l.ready()).rejects.toBeInstanceOf(UpstreamUnavailable);
    await expect(l.ready()).rejects.toThrow(
      /MCP server 'srv' is unavailable: refused #1; toolgate retries in \d+ ms/,
    );
    // Answered from the link's state: no new attempt was made, nor waited for.
    expect(attempts).toBe(1);
    // 40 ms, then 80 ms, then 160 ms: the fourth attempt succeeds on its own, without a request.
    await until(() => l.current !== null);
    expect(attempts).toBe(4);
    expect(
      logs.filter((m) => m.includes("is down")).map((m) => /retry (\d+) in (\d+) ms/.exec(m)!.slice(1)),
    ).toEqual([
      ["1", "40"],
      ["2", "80"],
      ["3", "160"],
    ]);
    await l.close();
  });

  it("reconnects after the connection drops, and stops trying once closed", async () => {
    let attempts = 0;
    const base = fakeConnect({ tools: { srv: ["a"] }, executed: [] });
    const l = link((c, o) => {
      attempts++;
      return base(c, o);
    });
    const first = await l.ready();
    await first.close(); // the server went away
    await sleep(5);
    await expect(l.ready()).rejects.toThrow(/its connection closed/);
    await until(() => l.current !== null);
    expect(attempts).toBe(2);
    const second = await l.ready();
    expect(second).not.toBe(first);
    await l.close();
    await expect(l.ready()).rejects.toThrow(/the session is closed/);
    await sleep(100);
    expect(attempts).toBe(2);
  });
});

describe("GatewaySession over a link whose transport fails", () => {
  it("answers at once, drops the connection and reconnects", async () => {
    const base = fakeConnect({ tools: { srv: ["t"] }, executed: [] });
    let connects = 0;
    let failNext = false;
    const logs: string[] = [];
    const session = new GatewaySession({
      mode: "direct",
      context: {
        client: "t",
        selection: { skills: [] },
        servers: [stdioConfig("srv")],
        gates: new Map([["srv", allowAllGate()]]),
        policy: allowAllGate(),
      },
      sessionId: "drop",
      audit: null,
      connect: async (c, o) => {
        connects++;
        const upstream = await base(c, o);
        const request = upstream.client.request.bind(upstream.client);
        upstream.client.request = ((...args: Parameters<typeof request>) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new TypeError("fetch failed"));
          }
          return request(...args);
        }) as typeof request;
        return upstream;
      },
      upstreamTimeoutMs: 1000,
      requestTimeoutMs: 1000,
      backoff: { initialMs: 30, maxMs: 100, stableMs: 10_000 },
      log: (l) => logs.push(l),
    });
    const [a, b] = linkedPair();
    await session.connect(b);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(a);
    try {
      expect(await client.callTool({ name: "srv__t", arguments: {} })).toEqual({
        content: [{ type: "text", text: "ran t" }],
      });
      failNext = true;
      const failed = await client.callTool({ name: "srv__t", arguments: {} });
      // The same structured refusal every surface gives a call toolgate could not complete.
      const reason =
        "MCP server 'srv' could not be reached (sending tools/call failed: fetch failed); toolgate is reconnecting";
      expect(failed).toEqual({
        content: [{ type: "text", text: `Blocked by toolgate: E_UPSTREAM_UNAVAILABLE ${reason}` }],
        isError: true,
        structuredContent: {
          status: "deny",
          error_code: "E_UPSTREAM_UNAVAILABLE",
          tool: "t",
          reason,
          violations: [],
        },
      });
      await until(() => connects === 2);
      expect(await client.callTool({ name: "srv__t", arguments: {} })).toEqual({
        content: [{ type: "text", text: "ran t" }],
      });
      expect(logs.some((l) => l.includes("sending tools/call failed: fetch failed"))).toBe(true);
    } finally {
      await client.close();
      await session.close();
    }
  });
});
