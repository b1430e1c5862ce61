// The gateway's metrics registry: counts land in its own registry (two gateways in one process do not
// share them, nor does prom-client's global one), the exposition parses strictly, and the status panel
// reads the same counters.
import { register as globalRegistry } from "prom-client";
import { describe, expect, it } from "vitest";
import { PromMetrics } from "../../../src/ops/promMetrics.js";
import { parsePrometheusText } from "../../support/promText.js";

const scrape = async (m: PromMetrics) => parsePrometheusText(await m.metricsText());

describe("PromMetrics", () => {
  it("counts decisions by verdict, code and server, in a registry of its own", async () => {
    const one = new PromMetrics({ processMetrics: false });
    const two = new PromMetrics({ processMetrics: false });
    one.decision("allow", null, "fs");
    one.decision("allow", null, "fs");
    one.decision("deny", "E_TOOL_DENIED", "fs");
    one.decision("hidden", "E_TOOL_NOT_ALLOWED", null);
    const text = await scrape(one);
    expect(text.types.get("toolgate_decisions_total")).toBe("counter");
    expect(text.value("toolgate_decisions_total", { verdict: "allow", code: "", server: "fs" })).toBe(2);
    expect(text.value("toolgate_decisions_total", { verdict: "deny", code: "E_TOOL_DENIED" })).toBe(1);
    expect(text.value("toolgate_decisions_total", { verdict: "hidden", server: "" })).toBe(1);
    expect((await scrape(two)).sum("toolgate_decisions_total")).toBe(0);
    expect(await globalRegistry.getSingleMetricAsString("toolgate_decisions_total").catch(() => "")).toBe("");
    one.close();
    two.close();
  });

  it("keeps the gate's time and the server's time in separate histograms", async () => {
    const m = new PromMetrics({ processMetrics: false });
    m.gateTime("fs", 0.0003);
    m.upstreamTime("fs", 2);
    m.upstreamTime("fs", 0.02);
    const text = await scrape(m);
    expect(text.value("toolgate_gate_duration_seconds_count", { server: "fs" })).toBe(1);
    expect(text.value("toolgate_upstream_duration_seconds_count", { server: "fs" })).toBe(2);
    expect(text.value("toolgate_upstream_duration_seconds_sum", { server: "fs" })).toBeCloseTo(2.02);
    expect(text.value("toolgate_gate_duration_seconds_bucket", { server: "fs", le: "0.0005" })).toBe(1);
    expect(text.value("toolgate_gate_duration_seconds_bucket", { server: "fs", le: "0.00025" })).toBe(0);
    m.close();
  });

  it("gives a server the best state of its connections, and none once they are all closed", async () => {
    const m = new PromMetrics({ processMetrics: false });
    const a = m.upstream("memory");
    const b = m.upstream("memory");
    a.state("starting");
    b.state("failed", "spawn node ENOENT");
    let text = await scrape(m);
    expect(text.value("toolgate_upstream_state", { server: "memory", state: "starting" })).toBe(1);
    expect(text.value("toolgate_upstream_state", { server: "memory", state: "failed" })).toBe(0);
    a.state("up");
    b.restarted();
    text = await scrape(m);
    expect(text.value("toolgate_upstream_state", { server: "memory", state: "up" })).toBe(1);
    expect(text.value("toolgate_upstream_restarts_total", { server: "memory" })).toBe(1);
    a.closed();
    text = await scrape(m);
    expect(text.value("toolgate_upstream_state", { server: "memory", state: "failed" })).toBe(1);
    b.closed();
    text = await scrape(m);
    expect(text.sum("toolgate_upstream_state", { server: "memory" })).toBe(0);
    const status = await m.status();
    expect(status.servers).toEqual([
      { server: "memory", state: null, lastError: "spawn node ENOENT", restarts: 1 },
    ]);
    m.close();
  });

  it("counts sessions by era (closing twice counts once), approvals waiting, state errors and reloads", async () => {
    const m = new PromMetrics({ processMetrics: false });
    const s1 = m.session("legacy");
    m.session("modern");
    m.session("legacy");
    s1.closed();
    s1.closed();
    let waiting = 3;
    m.approvalsWaiting(() => waiting);
    m.stateStoreError();
    m.reload("applied");
    m.reload("refused");
    m.reload("refused");
    let text = await scrape(m);
    expect(text.value("toolgate_sessions", { era: "legacy" })).toBe(1);
    expect(text.value("toolgate_sessions", { era: "modern" })).toBe(1);
    expect(text.value("toolgate_approvals_waiting")).toBe(3);
    expect(text.value("toolgate_state_store_errors_total")).toBe(1);
    expect(text.value("toolgate_reloads_total", { result: "refused" })).toBe(2);
    expect(text.value("toolgate_reloads_total", { result: "applied" })).toBe(1);
    waiting = 0;
    text = await scrape(m);
    expect(text.value("toolgate_approvals_waiting")).toBe(0);
    m.close();
  });

  it("reads the status panel's figures from the same counters", async () => {
    const m = new PromMetrics({ processMetrics: false });
    m.decision("allow", null, "fs");
    m.decision("deny", "E_TOOL_DENIED", "fs");
    m.session("legacy");
    m.approvalsWaiting(() => 2);
    const status = await m.status();
    expect(status.decisionsTotal).toBe(2);
    expect(status.sessions).toEqual({ legacy: 1, modern: 0 });
    expect(status.approvalsWaiting).toBe(2);
    // Two decisions within the first second: scaled to a minute from at least one second.
    expect(status.decisionsPerMinute).toBeGreaterThan(0);
    expect(status.decisionsPerMinute).toBeLessThanOrEqual(120);
    m.close();
  });

  it("adds the process's own metrics unless asked not to", async () => {
    const m = new PromMetrics();
    const text = await scrape(m);
    expect(text.types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(text.types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");
    m.close();
  });
});
