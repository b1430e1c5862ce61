// The session's decisions and the call flow's timings as the gateway's metrics count them: a real policy
// gate, the real registry (PromMetrics) read back through its Prometheus text, a port made here (the
// surface's part). Counts only: no durations are asserted.
import { describe, expect, it } from "vitest";
import type { AuditSink } from "../../../src/audit/sink.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { RequestStateCodec } from "../../../src/engine/protocol/requestState.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { PromMetrics } from "../../../src/ops/promMetrics.js";
import { MemoryApprovalClaims } from "../../../src/session/approvalClaims.js";
import { ApprovalRounds } from "../../../src/session/approvalRounds.js";
import type { CallPort } from "../../../src/session/callPort.js";
import { runCall } from "../../../src/session/runCall.js";
import type { ServerView } from "../../../src/session/serverView.js";
import { ToolSession } from "../../../src/session/toolSession.js";
import { parsePrometheusText } from "../../support/promText.js";

const POLICY = `version: "2.0"
tools:
  allow: ["read", "write", "deploy"]
  deny: ["secret_*"]
  approval_required: ["deploy"]
enforcement:
  unconstrained_tools: allow
`;

function world(options: { failWrites?: boolean; dryRun?: boolean } = {}) {
  const { policy } = loadPolicyText("p.yaml", POLICY);
  const gate = createPolicyGate(compilePolicy(policy!));
  const metrics = new PromMetrics({ processMetrics: false });
  const sink: AuditSink = {
    write: () => {
      if (options.failWrites === true) throw new Error("disk full");
    },
    close: () => {},
  };
  const session = new ToolSession({
    identity: { session: "s", client: "c" },
    audit: sink,
    limits: gate,
    dryRun: options.dryRun === true,
    approvalTimeoutMs: 1000,
    log: () => undefined,
    metrics,
  });
  const server: ServerView = { gate, name: "srv", serverId: () => "srv" };
  const tools = ["read", "write", "deploy", "secret_key"].map((name) => ({
    name,
    inputSchema: { type: "object" },
  }));
  const snapshot = { tools: new Map(tools.map((t) => [t.name, t])), exactSchemaText: () => undefined };
  const rounds = new ApprovalRounds({
    codec: RequestStateCodec.ephemeral(),
    claims: new MemoryApprovalClaims(),
    principal: "p",
    ttlMs: 1000,
  });
  const scrape = async () => parsePrometheusText(await metrics.metricsText());
  return { session, server, tools, snapshot, rounds, scrape, metrics };
}

type World = ReturnType<typeof world>;

/** One call through the call flow; resolves with what the port was told to do. */
function call(
  w: World,
  tool: string,
  answered: Promise<unknown> | undefined,
  approve = true,
): Promise<string> {
  return new Promise((resolve) => {
    const port: CallPort = {
      era: "legacy",
      asksOutOfBand: false,
      cannotAsk: null,
      resolve: (params) => ({
        server: w.server,
        tool,
        params,
        definitionShown: true,
        before: () => ({ ok: true, snapshot: w.snapshot }),
        fetchCatalog: null,
        absent: () => resolve("absent"),
      }),
      uncounted: () => {
        resolve("uncounted");
        return {};
      },
      forward: () => {
        resolve("forward");
        return answered;
      },
      ask: () =>
        Promise.resolve(
          approve ? { approved: true as const } : { approved: false as const, outcome: "decline" as const },
        ),
      answer: () => resolve("answer"),
      error: () => resolve("error"),
      withdrawn: () => resolve("withdrawn"),
      failed: () => resolve("failed"),
    };
    void runCall(
      w.session,
      w.rounds,
      { requestId: 1, params: { name: tool }, calledAs: tool, args: {} },
      port,
    );
  });
}

describe("decisions in the metrics", () => {
  it("counts each call's verdict with its code and server, and each tool a list hid", async () => {
    const w = world();
    expect(await call(w, "read", Promise.resolve())).toBe("forward");
    expect(await call(w, "secret_key", undefined)).toBe("absent");
    expect(await call(w, "deploy", undefined, false)).toBe("answer");
    w.session.filterList({
      requestId: 2,
      server: w.server,
      tools: w.tools,
      exactSchemaText: () => undefined,
    });
    const m = await w.scrape();
    expect(m.value("toolgate_decisions_total", { verdict: "allow", code: "", server: "srv" })).toBe(1);
    // The call to the hidden tool, and the list that hid it.
    expect(
      m.value("toolgate_decisions_total", { verdict: "hidden", code: "E_TOOL_DENIED", server: "srv" }),
    ).toBe(2);
    expect(m.value("toolgate_decisions_total", { verdict: "deny", code: "E_APPROVAL_REQUIRED" })).toBe(1);
    expect(m.sum("toolgate_decisions_total")).toBe(4);
    w.metrics.close();
  });

  it("counts an allowed call that could not be recorded as the refusal it became (E_AUDIT_WRITE)", async () => {
    const w = world({ failWrites: true });
    expect(await call(w, "read", undefined)).toBe("answer");
    const m = await w.scrape();
    expect(
      m.value("toolgate_decisions_total", { verdict: "deny", code: "E_AUDIT_WRITE", server: "srv" }),
    ).toBe(1);
    expect(m.sum("toolgate_decisions_total", { verdict: "allow" })).toBe(0);
    w.metrics.close();
  });

  it("counts a dry run's outcomes as would-hide", async () => {
    const w = world({ dryRun: true });
    w.session.filterList({
      requestId: 2,
      server: w.server,
      tools: w.tools,
      exactSchemaText: () => undefined,
    });
    const m = await w.scrape();
    expect(m.value("toolgate_decisions_total", { verdict: "would-hide", code: "E_TOOL_DENIED" })).toBe(1);
    expect(m.sum("toolgate_decisions_total", { verdict: "hidden" })).toBe(0);
    w.metrics.close();
  });
});

describe("call timings in the metrics", () => {
  it("times toolgate's part of every call, and the server's only where the surface says when it answered", async () => {
    const w = world();
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    await call(w, "read", answered);
    await call(w, "write", undefined);
    await call(w, "secret_key", undefined);
    let m = await w.scrape();
    expect(m.value("toolgate_gate_duration_seconds_count", { server: "srv" })).toBe(3);
    // The server has not answered yet.
    expect(m.value("toolgate_upstream_duration_seconds_count", { server: "srv" })).toBeUndefined();
    answer();
    await answered;
    await new Promise((r) => setImmediate(r));
    m = await w.scrape();
    expect(m.value("toolgate_upstream_duration_seconds_count", { server: "srv" })).toBe(1);
    w.metrics.close();
  });
});
