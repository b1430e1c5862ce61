// The per-session connection to one server: opened on first need and reused, reopened with exponential
// backoff after a failure, failing fast (never waiting) while down.
import { describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../../src/config/mcpJson.js";
import type { Upstream, UpstreamOptions } from "../../../src/gateway/upstream.js";
import { UpstreamLink, UpstreamUnavailable } from "../../../src/serve/upstreamLink.js";
import { fakeConnect, stdioConfig } from "./fakeUpstream.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    expect([...(await l.tools()).keys()]).toEqual(["a"]);
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
    const started = Date.now();
    await expect(l.ready()).rejects.toThrow(
      /MCP server 'srv' is unavailable: refused #1; toolgate retries in \d+ ms/,
    );
    expect(Date.now() - started).toBeLessThan(20);
    // 40 ms, then 80 ms, then 160 ms: the fourth attempt succeeds on its own, without a request.
    await sleep(40 + 80 + 160 + 150);
    expect(attempts).toBe(4);
    expect(l.current).not.toBeNull();
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
    await sleep(120);
    expect(attempts).toBe(2);
    const second = await l.ready();
    expect(second).not.toBe(first);
    await l.close();
    await expect(l.ready()).rejects.toThrow(/the session is closed/);
    await sleep(100);
    expect(attempts).toBe(2);
  });
});
