// The session core on its own: a real policy gate, a fake server (a catalog snapshot built here) and a sink
// that keeps events. Every surface's decisions are these, so each rule is pinned once, here.
import type { Settled } from "../../../src/state/settled.js";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../../src/audit/events.js";
import type { AuditSink } from "../../../src/audit/sink.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import type { ToolGate } from "../../../src/engine/model/gate.js";
import type { ListedTool } from "../../../src/session/catalogPages.js";
import type { CallStep, ToolCall } from "../../../src/session/callPipeline.js";
import type { ServerView } from "../../../src/session/serverView.js";
import type { CatalogSnapshot, CatalogState } from "../../../src/session/toolCatalog.js";
import { ToolSession } from "../../../src/session/toolSession.js";

const POLICY = `version: "2.0"
tools:
  allow: ["read", "write", "deploy", "drifty", "ok_out"]
  deny: ["secret_*"]
  approval_required: ["deploy"]
schemas:
  read:
    type: object
    properties: { path: { type: string, maxLength: 20 } }
    required: [path]
    additionalProperties: false
limits:
  max_requests_total: 3
enforcement:
  unconstrained_tools: allow
`;

function gate(text = POLICY): ToolGate {
  const { policy, diagnostics } = loadPolicyText("p.yaml", text);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return createPolicyGate(compilePolicy(policy));
}

function snapshotOf(...tools: ListedTool[]): CatalogSnapshot {
  return { tools: new Map(tools.map((t) => [t.name, t])), exactSchemaText: () => undefined };
}

function catalog(...tools: ListedTool[]): CatalogState {
  return {
    ok: true,
    snapshot: { tools: new Map(tools.map((t) => [t.name, t])), exactSchemaText: () => undefined },
  };
}

const tool = (name: string, extra: Record<string, unknown> = {}): ListedTool => ({
  name,
  inputSchema: { type: "object" },
  ...extra,
});

interface Harness {
  session: ToolSession;
  server: ServerView;
  events: AuditEvent[];
  logs: string[];
  call(name: string, args?: unknown, over?: Partial<ToolCall>): CallStep;
}

function harness(
  options: {
    gate?: ToolGate;
    dryRun?: boolean;
    verbose?: boolean;
    failWrites?: boolean;
    client?: string;
    approvalWays?: ConstructorParameters<typeof ToolSession>[0]["approvalWays"];
  } = {},
): Harness {
  const events: AuditEvent[] = [];
  const logs: string[] = [];
  const sink: AuditSink = {
    write: (event) => {
      if (options.failWrites === true) throw new Error("disk full");
      events.push(event);
    },
    close: () => {},
  };
  const g = options.gate ?? gate();
  const server: ServerView = {
    gate: g,
    name: options.client === undefined ? null : "srv",
    serverId: () => "srv",
  };
  const session = new ToolSession({
    identity: { session: "s1", ...(options.client === undefined ? {} : { client: options.client }) },
    audit: sink,
    limits: g,
    dryRun: options.dryRun === true,
    verbose: options.verbose === true,
    approvalTimeoutMs: 120_000,
    log: (line) => void logs.push(line),
    ...(options.approvalWays === undefined ? {} : { approvalWays: options.approvalWays }),
  });
  const cat = catalog(
    tool("read"),
    tool("write"),
    tool("deploy"),
    tool("secret_key"),
    tool("ok_out", { outputSchema: {} }),
  );
  return {
    session,
    server,
    events,
    logs,
    call: (name, args = {}, over = {}) =>
      settledNow(
        session.decideCall({
          requestId: 7,
          server,
          tool: name,
          params: { name, arguments: args as never },
          catalog: cat,
          counters: session.countHere(true),
          cannotAsk: null,
          definitionShown: true,
          ...over,
        }),
      ),
  };
}

/** In memory the pipeline's effects are immediate, so its step is settled at once. */
function settledNow<T>(value: Settled<T>): T {
  if (value instanceof Promise) throw new Error("expected a settled step (memory state)");
  return value;
}

describe("ToolSession: calls", () => {
  it("forwards an allowed call and records it with its rule", () => {
    const h = harness();
    const step = h.call("write", { path: "a" });
    expect(step).toMatchObject({ kind: "forward", params: { name: "write", arguments: { path: "a" } } });
    expect(h.events[0]).toMatchObject({
      event: "tools/call",
      tool: "write",
      decision: "allow",
      rule: { kind: "tools.allow" },
    });
  });

  it("answers a denied name as absent and records why", () => {
    const h = harness();
    expect(h.call("secret_key")).toEqual({ kind: "absent" });
    expect(h.events[0]).toMatchObject({
      decision: "hidden",
      code: "E_TOOL_DENIED",
      rule: { value: "secret_*" },
    });
  });

  it("a tool the catalog does not have is absent too", () => {
    expect(harness().call("nope")).toEqual({ kind: "absent" });
  });

  it("denies a schema violation with the structured deny", () => {
    const h = harness();
    const step = h.call("read", { path: "x".repeat(30) });
    expect(step.kind).toBe("deny");
    const result = (step as { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { status: "deny", error_code: "E_ARG_SCHEMA", tool: "read" },
    });
  });

  it("a catalog that cannot be had is E_CATALOG_UNAVAILABLE, by toolgate", () => {
    const h = harness();
    const step = h.call("read", { path: "a" }, { catalog: { ok: false, reason: "the server is down" } });
    expect(step).toMatchObject({
      kind: "deny",
      result: { content: [{ text: "Blocked by toolgate: E_CATALOG_UNAVAILABLE the server is down" }] },
    });
    expect(h.events[0]).toMatchObject({ decision: "deny", code: "E_CATALOG_UNAVAILABLE" });
  });

  it("without a catalog: the name alone decides a denied tool, else it asks for the catalog", () => {
    const h = harness();
    expect(h.call("secret_key", {}, { catalog: null })).toEqual({ kind: "absent" });
    expect(h.call("read", {}, { catalog: null })).toEqual({ kind: "needs-catalog" });
  });

  it("a write it cannot record is not forwarded: E_AUDIT_WRITE, and the log says why", () => {
    const h = harness({ failWrites: true });
    const step = h.call("write", {});
    expect(step).toMatchObject({
      kind: "deny",
      result: { structuredContent: { error_code: "E_AUDIT_WRITE" } },
    });
    expect(h.logs).toEqual(["E_AUDIT_WRITE disk full"]);
  });

  it("leaves out structuredContent when the client holds the tool's outputSchema", () => {
    const h = harness({ failWrites: true });
    const shown = h.call("ok_out", {}) as { result: Record<string, unknown> };
    expect(shown.result.structuredContent).toBeUndefined();
    const meta = h.call("ok_out", {}, { definitionShown: false }) as { result: Record<string, unknown> };
    expect(meta.result.structuredContent).toBeDefined();
  });

  it("a server lost after forwarding: the step records and answers E_UPSTREAM_UNAVAILABLE", () => {
    const h = harness();
    const step = h.call("write", {});
    if (step.kind !== "forward") throw new Error(step.kind);
    expect(step.failed("the server went away")).toMatchObject({
      structuredContent: { error_code: "E_UPSTREAM_UNAVAILABLE", reason: "the server went away" },
    });
    expect(h.events.map((e) => (e as { code: unknown }).code)).toEqual([null, "E_UPSTREAM_UNAVAILABLE"]);
  });

  it("in a dry run forwards what it would deny or hide, and says so", () => {
    const h = harness({ dryRun: true });
    expect(h.call("secret_key").kind).toBe("forward");
    expect(h.call("read", { path: "x".repeat(30) }).kind).toBe("forward");
    expect(h.events.map((e) => (e as { decision: string }).decision)).toEqual(["would-hide", "would-deny"]);
  });
});

describe("ToolSession: approval", () => {
  it("asks, then forwards only on approval; the question names tool and server", () => {
    const h = harness();
    const step = h.call("deploy", { target: "prod" });
    if (step.kind !== "ask") throw new Error(step.kind);
    expect(String(step.question.message)).toMatch(/Tool: deploy\nServer: srv/);
    expect(step.answered({ approved: true }).kind).toBe("forward");
    expect(h.events[0]).toMatchObject({
      decision: "allow",
      approval: { elicitation: { outcome: "accept" } },
    });
  });

  it("a decline is E_APPROVAL_REQUIRED; a timeout says which flag bounds it; a cancelled call gets no answer", () => {
    const h = harness();
    const ask = () => h.call("deploy", {}) as Extract<CallStep, { kind: "ask" }>;
    expect(ask().answered({ approved: false, outcome: "decline" })).toMatchObject({
      kind: "deny",
      result: { structuredContent: { error_code: "E_APPROVAL_REQUIRED" } },
    });
    const timedOut = ask().answered({ approved: false, outcome: "timeout" }) as unknown as {
      result: { structuredContent: { reason: string } };
    };
    expect(timedOut.result.structuredContent.reason).toMatch(
      /no answer came within 120 s \(--approval-timeout\)/,
    );
    expect(ask().answered({ approved: false, outcome: "client-cancelled" })).toEqual({ kind: "withdrawn" });
  });

  it("refuses when nobody can be asked and no artifact came with the call", () => {
    const h = harness();
    const step = h.call("deploy", {}, { cannotAsk: "the client did not declare form-mode elicitation" });
    expect(step).toMatchObject({
      kind: "deny",
      result: { structuredContent: { error_code: "E_APPROVAL_REQUIRED" } },
    });
  });

  it("in a dry run forwards without asking and records would-deny", () => {
    const h = harness({ dryRun: true });
    expect(h.call("deploy", {}).kind).toBe("forward");
    expect(h.events[0]).toMatchObject({ decision: "would-deny", code: "E_APPROVAL_REQUIRED" });
  });
});

describe("ToolSession: limits", () => {
  it("refuses a request over max_requests_total with the engine's reason and rule", () => {
    const h = harness();
    for (let i = 0; i < 3; i++)
      expect(h.session.limitRequest(i, "resources/list", h.session.countHere(false))).toBeNull();
    const refused = h.session.limitRequest(4, "resources/list", h.session.countHere(false));
    expect(refused).toMatchObject({ code: -32000, data: { error_code: "E_RATE_LIMIT" } });
    expect(refused?.message).toBe(
      "Request refused by policy: E_RATE_LIMIT limit reached: max_requests_total is 3 and this session has made 3 requests",
    );
    expect(h.events[0]).toMatchObject({
      event: "request",
      method: "resources/list",
      rule: { layer: "policy", kind: "limits.max_requests_total", value: "3" },
    });
  });

  it("records but lets the request through in a dry run", () => {
    const h = harness({ dryRun: true });
    for (let i = 0; i < 3; i++) h.session.countHere(false);
    expect(h.session.limitRequest(4, "prompts/list", h.session.countHere(false))).toBeNull();
    expect(h.events[0]).toMatchObject({ decision: "would-deny", code: "E_RATE_LIMIT" });
  });
});

describe("ToolSession: lists", () => {
  it("shows visible tools, records hidden ones with why, never shows a malformed entry", () => {
    const h = harness();
    const listed = h.session.filterList({
      requestId: 1,
      server: h.server,
      tools: [tool("read"), tool("secret_key"), { nameless: true }, "junk"],
      exactSchemaText: () => undefined,
    });
    expect(listed.shown.map((t) => t.name)).toEqual(["read"]);
    expect(listed.recorded).toBe(true);
    expect(h.events[0]).toMatchObject({
      event: "tools/list",
      shown: 1,
      hidden: 3,
      hidden_tools: [
        { tool: "secret_key", code: "E_TOOL_DENIED" },
        { tool: "(malformed entry)", code: null },
        { tool: "(malformed entry)", code: null },
      ],
    });
  });

  it("a list it cannot record is not shown", () => {
    const h = harness({ failWrites: true });
    expect(
      h.session.filterList({
        requestId: 1,
        server: h.server,
        tools: [tool("read")],
        exactSchemaText: () => undefined,
      }).recorded,
    ).toBe(false);
  });

  it("in front of several servers, events name the server and the client", () => {
    const h = harness({ client: "token-a" });
    h.session.filterList({
      requestId: 1,
      server: h.server,
      tools: [tool("read")],
      exactSchemaText: () => undefined,
    });
    expect(h.events[0]).toMatchObject({ server: "srv", client: "token-a" });
  });

  it("verbose: one line per list and per call", () => {
    const h = harness({ verbose: true });
    h.session.filterList({
      requestId: 1,
      server: h.server,
      tools: [tool("read"), tool("secret_key")],
      exactSchemaText: () => undefined,
    });
    h.call("read", { path: "a" });
    expect(h.logs).toEqual([
      "tools/list: 1 shown, 1 hidden (secret_key E_TOOL_DENIED)",
      expect.stringMatching(/^tools\/call read: allow — /),
    ]);
  });
});

describe("ToolSession: catalog warnings", () => {
  const pinned = `version: "2.0"
tools:
  allow: ["*"]
tool_pins:
  gone:
    tool_name: "gone"
    schema_hash: "${"0".repeat(64)}"
    meta_hash: "${"0".repeat(64)}"
  drifty:
    tool_name: "drifty"
    schema_hash: "${"0".repeat(64)}"
    meta_hash: "${"0".repeat(64)}"
enforcement:
  unconstrained_tools: allow
`;

  it("says pins without their tool and drifted tools once, and again only when they change", () => {
    const h = harness({ gate: gate(pinned) });
    const snapshot = snapshotOf(tool("drifty"));
    h.session.catalogFetched(h.server, snapshot);
    h.session.catalogFetched(h.server, snapshot);
    expect(h.logs).toHaveLength(2);
    expect(h.logs[0]).toMatch(/tool_pins\.gone pins tool 'gone'.*no longer lists/);
    expect(h.logs[1]).toMatch(/withholding tool 'drifty' \(E_TOOL_DRIFT\)/);
    h.session.catalogFetched(h.server, snapshotOf(tool("gone"), tool("drifty")));
    expect(h.logs.length).toBeGreaterThan(2);
  });

  it("a drifted tool the client was shown before is explained, not hidden", () => {
    const h = harness({ gate: gate(pinned) });
    const before = h.call("drifty", {}, { catalog: catalog(tool("drifty")) });
    expect(before).toEqual({ kind: "absent" });
    h.session.markShown(h.server, ["drifty"]);
    expect(h.call("drifty", {}, { catalog: catalog(tool("drifty")) })).toMatchObject({
      kind: "deny",
      result: { content: [{ text: expect.stringMatching(/^Blocked by policy: E_TOOL_DRIFT /) }] },
    });
  });
});

describe("ToolSession: describe (meta mode)", () => {
  it("describes a visible tool, hides a denied one, refuses without a catalog", () => {
    const h = harness({ client: "t" });
    const input = { requestId: 1, server: h.server, via: "mcp_describe_srv", args: {} };
    const cat = catalog(tool("read"), tool("secret_key"));
    expect(h.session.describe({ ...input, tool: "read", catalog: cat })).toMatchObject({
      kind: "described",
      tool: { name: "read" },
    });
    expect(h.session.describe({ ...input, tool: "secret_key", catalog: null })).toEqual({ kind: "absent" });
    expect(h.session.describe({ ...input, tool: "read", catalog: null })).toEqual({ kind: "needs-catalog" });
    expect(
      h.session.describe({ ...input, tool: "read", catalog: { ok: false, reason: "down" } }),
    ).toMatchObject({
      kind: "deny",
      result: { structuredContent: { error_code: "E_CATALOG_UNAVAILABLE" } },
    });
    expect(h.events.map((e) => (e as { decision: string }).decision)).toEqual(["allow", "hidden", "deny"]);
  });
});

describe("ToolSession: what it writes about a call is masked first, then cut", () => {
  const scoped = `version: "2.0"
tools:
  allow: ["read"]
  restrict_scope: ["read"]
  redact_args: ["read"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: /workspace, scope_match_mode: prefix }
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: all_fields }
enforcement:
  unconstrained_tools: allow
`;

  it("a long secret path outside the scope leaks no piece of itself into the deny, the audit or the log", () => {
    const h = harness({ gate: gate(scoped), verbose: true });
    const secret = `/etc/${"s3cr3t-".repeat(50)}tail`;
    const step = h.call("read", { path: secret });
    expect(step.kind).toBe("deny");
    const written = JSON.stringify([step, h.events, h.logs]);
    for (let i = 0; i + 20 <= secret.length; i += 7) expect(written).not.toContain(secret.slice(i, i + 20));
    expect(written).toContain("***");
  });
});

describe("ToolSession: tools.deny entries no server's tool matches (W_DENY_UNMATCHED)", () => {
  const policy = `version: "2.0"
tools:
  deny: ["a__drop", "b_only", "typo_tool"]
`;
  const twoServers = () => {
    const logs: string[] = [];
    const { policy: p } = loadPolicyText("p.yaml", policy);
    const compiled = compilePolicy(p!);
    const view = (name: string): ServerView => ({
      gate: createPolicyGate(compiled, { serverId: name, gatewayName: name }),
      name,
      serverId: () => name,
    });
    const session = new ToolSession({
      identity: { session: "s1" },
      audit: null,
      limits: createPolicyGate(compiled),
      approvalTimeoutMs: 1000,
      log: (line) => void logs.push(line),
      servers: 2,
    });
    return { session, logs, a: view("a"), b: view("b") };
  };

  it("waits for every server's catalog, then names only the entries none of them matches", () => {
    const { session, logs, a, b } = twoServers();
    session.catalogFetched(a, snapshotOf(tool("drop"), tool("keep")));
    expect(logs.filter((l) => l.includes("W_DENY_UNMATCHED"))).toEqual([]);
    session.catalogFetched(b, snapshotOf(tool("b_only")));
    expect(logs.filter((l) => l.includes("W_DENY_UNMATCHED"))).toEqual([
      expect.stringMatching(
        /^p\.yaml:3:\d+: warning W_DENY_UNMATCHED .*'typo_tool' matches no tool of any of the 2 servers/,
      ),
    ]);
  });

  it("says it once while the catalogs stay the same, and again when they change", () => {
    const { session, logs, a, b } = twoServers();
    session.catalogFetched(a, snapshotOf(tool("drop")));
    session.catalogFetched(b, snapshotOf(tool("b_only")));
    session.catalogFetched(b, snapshotOf(tool("b_only")));
    expect(logs.filter((l) => l.includes("W_DENY_UNMATCHED"))).toHaveLength(1);
    session.catalogFetched(b, snapshotOf(tool("typo_tool")));
    session.catalogFetched(a, snapshotOf(tool("other")));
    expect(logs.filter((l) => l.includes("W_DENY_UNMATCHED")).slice(1)).toEqual([
      expect.stringContaining("'b_only'"),
      expect.stringContaining("'a__drop'"),
      expect.stringContaining("'b_only'"),
    ]);
  });
});

describe("ToolSession: an E_APPROVAL_REQUIRED refusal says where the rule is and how to approve", () => {
  const reasonOf = (step: CallStep): string =>
    (step as unknown as { result: { structuredContent: { reason: string } } }).result.structuredContent
      .reason;
  const RULE = ". Required by p.yaml:5:23, tools.approval_required 'deploy'. To approve: ";
  const ELICIT = "a client with MCP form elicitation (toolgate asks its person, who ticks 'approve')";

  it("wrap, nobody can be asked: elicitation, or an artifact once wrap trusts a key", () => {
    const h = harness({ approvalWays: { surface: "wrap" } });
    const reason = reasonOf(
      h.call("deploy", {}, { cannotAsk: "the client did not declare form-mode elicitation in initialize" }),
    );
    expect(reason).toBe(
      "tool 'deploy' requires approval (tools.approval_required 'deploy'): the call carries no approval artifact (_meta.approval) and no person can be asked: the client did not declare form-mode elicitation in initialize" +
        RULE +
        ELICIT +
        "; or an artifact from `toolgate approve --tool deploy …` in the call's params._meta.approval, once wrap trusts its key (--approval-key FILE or TOOLGATE_APPROVAL_SECRET; none is set)",
    );
    expect(h.events[0]).toMatchObject({ decision: "deny", code: "E_APPROVAL_REQUIRED", reason });
  });

  it("serve: the dashboard, running or not; a declined question says the same", () => {
    const off = harness({ approvalWays: { surface: "serve", dashboard: false } });
    expect(reasonOf(off.call("deploy", {}, { cannotAsk: "no elicitation" }))).toContain(
      "; or the dashboard (start serve with --dashboard; a client that cannot ask then waits for an approver at /ui/approvals); or an artifact",
    );
    const on = harness({ approvalWays: { surface: "serve", dashboard: true } });
    const asked = on.call("deploy", {}) as Extract<CallStep, { kind: "ask" }>;
    const declined = reasonOf(asked.answered({ approved: false, outcome: "decline" }));
    expect(declined).toMatch(
      /^tool 'deploy' requires approval \(tools.approval_required 'deploy'\) and the person declined\. Required by p\.yaml:5:23/,
    );
    expect(declined).toContain(
      "To approve: call again and approve it when asked; or an approver in the dashboard's /ui/approvals while the call waits; or an artifact",
    );
    expect(declined).toContain("approval_keys in config.yaml");
  });

  it("says nothing more without the surface's ways, and nothing for other refusals", () => {
    const plain = harness();
    expect(reasonOf(plain.call("deploy", {}, { cannotAsk: "no elicitation" }))).not.toContain("To approve");
    const h = harness({ approvalWays: { surface: "wrap" } });
    expect(reasonOf(h.call("read", { path: 1 }))).not.toContain("To approve");
  });
});
