import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../../src/audit/events.js";
import type { AuditSink } from "../../../src/audit/sink.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../src/engine/rpc/jsonRpc.js";
import { PolicyProxy, type PolicyProxyOptions } from "../../../src/wrap/policyProxy.js";
import type { Decision, SessionCounters } from "../../../src/engine/model/decision.js";
import type { NameVerdict, ToolDefinition, ToolGate } from "../../../src/engine/model/gate.js";

// A test double for the policy engine (a collaborator of the proxy): names in `hidden` are not visible,
// names in `denied` are visible but every call to them is denied, `limit` caps requests.
interface GateSpec {
  hidden?: string[];
  denied?: string[];
  explain?: boolean;
  requestLimit?: number;
  obligation?: Decision["obligations"][number];
}

function testGate(
  spec: GateSpec = {},
): ToolGate & { calls: Array<{ tool: string; args: unknown; counters: SessionCounters }> } {
  const calls: Array<{ tool: string; args: unknown; counters: SessionCounters }> = [];
  return {
    calls,
    policyDigest: "ab".repeat(32),
    visibility(tool: ToolDefinition): NameVerdict {
      if (spec.hidden?.includes(tool.name)) {
        return {
          visible: false,
          explain: spec.explain === true,
          code: "E_TOOL_DENIED",
          rule: { layer: "policy", kind: "tools.deny", value: tool.name },
          reason: `tool '${tool.name}' is denied`,
        };
      }
      return { visible: true, explain: false, code: null, rule: null, reason: "visible" };
    },
    decideCall(tool: string, args: unknown, counters: SessionCounters): Decision {
      calls.push({ tool, args, counters: { ...counters } });
      if (spec.denied?.includes(tool)) {
        return {
          decision: "deny",
          code: "E_ARG_SCHEMA",
          warnings: [],
          tool,
          reason: "/path must match pattern",
          rule: { layer: "policy", kind: "schemas", value: tool },
          violations: [{ path: "/path", message: "must match pattern" }],
          obligations: [],
        };
      }
      return {
        decision: "allow",
        code: null,
        warnings: ["E_TOOL_UNCONSTRAINED"],
        tool,
        reason: "allowed",
        rule: { layer: "policy", kind: "tools.allow", value: tool },
        violations: [],
        obligations: spec.obligation === undefined ? [] : [spec.obligation],
      };
    },
    requestLimit: (counters: SessionCounters) =>
      spec.requestLimit !== undefined && counters.requests >= spec.requestLimit
        ? {
            code: "E_RATE_LIMIT",
            reason: `limit reached: max_requests_total is ${spec.requestLimit} and this session has made ${counters.requests} requests`,
            rule: { layer: "policy", kind: "limits.max_requests_total", value: String(spec.requestLimit) },
          }
        : null,
  };
}

interface ServerSpec {
  tools?: ToolDefinition[][];
  /** The server's answer body for a tool it does not have. */
  unknown?: (name: string) => { result: unknown } | { error: { code: number; message: string } };
  capabilities?: Record<string, unknown>;
  /** Ignore these methods (never answer). */
  silent?: string[];
}

/** An in-memory MCP server speaking to the proxy through frames, answering on a later tick. */
function harness(
  gateSpec: GateSpec = {},
  serverSpec: ServerSpec = {},
  options: Partial<PolicyProxyOptions> = {},
) {
  const pages = serverSpec.tools ?? [
    [
      { name: "read_file", inputSchema: { type: "object" } },
      { name: "write_file", inputSchema: { type: "object" } },
    ],
  ];
  const gate = testGate(gateSpec);
  const toClient: JsonRpcMessage[] = [];
  const toServer: JsonRpcMessage[] = [];
  const events: AuditEvent[] = [];
  const logs: string[] = [];
  const executed: string[] = [];
  const audit: AuditSink = { write: (e) => void events.push(e), close: () => {} };
  const answer = (m: JsonRpcMessage): JsonRpcMessage | undefined => {
    const request = m as JsonRpcRequest;
    if (!("id" in m) || typeof request.method !== "string") return undefined;
    if (serverSpec.silent?.includes(request.method)) return undefined;
    const reply = (body: object): JsonRpcMessage =>
      ({ jsonrpc: "2.0", id: request.id, ...body }) as JsonRpcMessage;
    switch (request.method) {
      case "initialize":
        return reply({
          result: {
            protocolVersion: "2025-06-18",
            capabilities: serverSpec.capabilities ?? { tools: { listChanged: true } },
          },
        });
      case "tools/list": {
        const cursor = request.params?.cursor;
        const index = typeof cursor === "string" ? Number(cursor) : 0;
        const next = index + 1 < pages.length ? { nextCursor: String(index + 1) } : {};
        return reply({ result: { tools: pages[index], ...next } });
      }
      case "tools/call": {
        const name = request.params?.name as string;
        if (pages.flat().some((t) => t.name === name)) {
          executed.push(name);
          return reply({ result: { content: [{ type: "text", text: `ran ${name}` }] } });
        }
        const unknown =
          serverSpec.unknown ?? ((n: string) => ({ error: { code: -32602, message: `Unknown tool: ${n}` } }));
        return reply(unknown(name));
      }
      default:
        return reply({ result: {} });
    }
  };
  const proxy: PolicyProxy = new PolicyProxy(
    { gate, audit, session: "s1", log: (l) => logs.push(l), privateRequestTimeoutMs: 200, ...options },
    {
      toClient: (m) => toClient.push(m),
      toServer: (m) => {
        // Serialize like a transport would: the server sees bytes, never our objects.
        const sent = JSON.parse(JSON.stringify(m)) as JsonRpcMessage;
        toServer.push(sent);
        const reply = answer(sent);
        if (reply !== undefined)
          setImmediate(() => proxy.fromServer({ kind: "text", text: JSON.stringify(reply) }));
      },
    },
  );
  const client = (m: object | string) =>
    proxy.fromClient({ kind: "text", text: typeof m === "string" ? m : JSON.stringify(m) });
  const server = (m: object | string) =>
    proxy.fromServer({ kind: "text", text: typeof m === "string" ? m : JSON.stringify(m) });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    await proxy.idle();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };
  const handshake = async () => {
    client({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    await settle();
    client({ jsonrpc: "2.0", method: "notifications/initialized" });
    await settle();
  };
  const answerTo = (id: string | number) =>
    toClient.find((m) => "id" in m && (m as JsonRpcResponse).id === id) as JsonRpcResponse | undefined;
  const call = async (id: number, name: string, args?: unknown) => {
    client({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: args === undefined ? { name } : { name, arguments: args },
    });
    await settle();
    return answerTo(id);
  };
  return {
    proxy,
    gate,
    toClient,
    toServer,
    events,
    logs,
    executed,
    client,
    server,
    settle,
    handshake,
    answerTo,
    call,
  };
}

describe("PolicyProxy: tools/list", () => {
  it("filters every tools/list answer the client asked for and records one event", async () => {
    const h = harness({ hidden: ["write_file"] });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await h.settle();
    const list = h.answerTo(1)!;
    expect((list.result as { tools: ToolDefinition[] }).tools.map((t) => t.name)).toEqual(["read_file"]);
    const listEvents = h.events.filter((e) => e.event === "tools/list");
    expect(listEvents).toEqual([
      expect.objectContaining({
        event: "tools/list",
        decision: "filtered",
        shown: 1,
        hidden: 1,
        request_id: 1,
        hidden_tools: [
          {
            tool: "write_file",
            code: "E_TOOL_DENIED",
            rule: { layer: "policy", kind: "tools.deny", value: "write_file" },
          },
        ],
      }),
    ]);
  });

  it("filters each page and leaves cursors untouched", async () => {
    const h = harness(
      { hidden: ["b", "c"] },
      {
        tools: [
          [{ name: "a" }, { name: "b" }],
          [{ name: "c" }, { name: "d" }],
        ],
      },
    );
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await h.settle();
    expect(h.answerTo(1)!.result).toEqual({ tools: [{ name: "a" }], nextCursor: "1" });
    h.client({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { cursor: "1" } });
    await h.settle();
    expect(h.answerTo(2)!.result).toEqual({ tools: [{ name: "d" }] });
  });

  it("drops a server answer to a request that is not in flight (never asked, or answered already)", async () => {
    const h = harness({ hidden: ["x"] });
    await h.handshake();
    const before = h.toClient.length;
    h.server({ jsonrpc: "2.0", id: 99, result: { tools: [{ name: "x" }] } });
    h.client({ jsonrpc: "2.0", id: 5, method: "ping" });
    await h.settle();
    h.server({ jsonrpc: "2.0", id: 5, result: { second: true } });
    expect(h.toClient.slice(before)).toEqual([{ jsonrpc: "2.0", id: 5, result: {} }]);
  });

  it("refuses a request that reuses the id of one in flight, so no answer can be taken for another's", async () => {
    const h = harness({ hidden: ["x"] }, { silent: ["ping"] });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 7, method: "ping" });
    h.client({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    await h.settle();
    expect(
      h.toServer.filter((m) => (m as JsonRpcRequest).id === 7).map((m) => (m as JsonRpcRequest).method),
    ).toEqual(["ping"]);
    expect(h.toClient.at(-1)).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining("in flight") },
    });
  });

  it("shows everything in a dry run and records would-filter", async () => {
    const h = harness({ hidden: ["write_file"] }, {}, { dryRun: true });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await h.settle();
    expect((h.answerTo(1)!.result as { tools: unknown[] }).tools).toHaveLength(2);
    expect(h.events.find((e) => e.event === "tools/list")).toMatchObject({
      decision: "would-filter",
      shown: 2,
      hidden: 1,
    });
  });

  it("answers with an error, not a list, when the list event cannot be recorded", async () => {
    const h = harness(
      {},
      {},
      {
        audit: {
          write: () => {
            throw new Error("disk full");
          },
          close: () => {},
        },
      },
    );
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await h.settle();
    expect(h.answerTo(1)).toMatchObject({
      error: { code: -32603, message: expect.stringContaining("E_AUDIT_WRITE") },
    });
  });
});

describe("PolicyProxy: tools/call", () => {
  it("forwards an allowed call as the checked object and records it with an argument digest", async () => {
    const h = harness();
    await h.handshake();
    const answer = await h.call(5, "read_file", { path: "/w/a", n: 1 });
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 5,
      result: { content: [{ type: "text", text: "ran read_file" }] },
    });
    expect(h.toServer).toContainEqual({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "read_file", arguments: { path: "/w/a", n: 1 } },
    });
    const event = h.events.find((e) => e.event === "tools/call");
    expect(event).toMatchObject({
      tool: "read_file",
      decision: "allow",
      code: null,
      warnings: ["E_TOOL_UNCONSTRAINED"],
      session: "s1",
      policy_digest: "ab".repeat(32),
      request_id: 5,
    });
    // RFC 8785: same arguments in another key order give the same digest; raw arguments are not logged.
    await h.call(6, "read_file", { n: 1, path: "/w/a" });
    const events = h.events.filter((e) => e.event === "tools/call");
    expect(events[1]).toMatchObject({ args_sha256: (event as { args_sha256: string }).args_sha256 });
    expect(JSON.stringify(h.events)).not.toContain("/w/a");
  });

  it("decides and records a call whose arguments have no RFC 8785 form (unpaired surrogate)", async () => {
    const h = harness();
    await h.handshake();
    h.client(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"s":"\\ud800"}}}',
    );
    await h.settle();
    expect(h.answerTo(5)).toMatchObject({ result: { content: [{ text: "ran read_file" }] } });
    expect(h.events.find((e) => e.event === "tools/call")).toMatchObject({
      decision: "allow",
      args_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      args_canonical: false,
    });
  });

  it("answers a denied call with the structured deny and never forwards it", async () => {
    const h = harness({ denied: ["write_file"] });
    await h.handshake();
    const answer = await h.call(5, "write_file", { path: "/etc/passwd" });
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 5,
      result: {
        isError: true,
        content: [{ type: "text", text: "Blocked by policy: E_ARG_SCHEMA /path must match pattern" }],
        structuredContent: {
          status: "deny",
          error_code: "E_ARG_SCHEMA",
          tool: "write_file",
          reason: "/path must match pattern",
          violations: [{ path: "/path", message: "must match pattern" }],
        },
      },
    });
    expect(h.executed).toEqual([]);
    expect(h.events.find((e) => e.event === "tools/call")).toMatchObject({
      decision: "deny",
      code: "E_ARG_SCHEMA",
      rule: { layer: "policy", kind: "schemas", value: "write_file" },
    });
  });

  it("omits structuredContent on a deny for a tool that declares an outputSchema", async () => {
    const h = harness(
      { denied: ["t"] },
      { tools: [[{ name: "t", outputSchema: { type: "object" } } as ToolDefinition]] },
    );
    await h.handshake();
    const answer = await h.call(5, "t", {});
    expect(answer!.result).toEqual({
      isError: true,
      content: [{ type: "text", text: "Blocked by policy: E_ARG_SCHEMA /path must match pattern" }],
    });
  });

  it("answers hidden and nonexistent tools with the server's own unknown-tool answer, never forwarding", async () => {
    const h = harness({ hidden: ["write_file"] });
    await h.handshake();
    const hidden = await h.call(5, "write_file", { path: "x" });
    const absent = await h.call(6, "no_such_tool", { path: "x" });
    expect(hidden).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32602, message: "Unknown tool: write_file" },
    });
    expect(absent).toEqual({
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32602, message: "Unknown tool: no_such_tool" },
    });
    expect(h.executed).toEqual([]);
    const forwardedCalls = h.toServer.filter((m) => (m as JsonRpcRequest).method === "tools/call");
    // Only the probe reached the server.
    expect(forwardedCalls).toHaveLength(1);
    expect((forwardedCalls[0] as JsonRpcRequest).params?.name).toMatch(/^toolgate-probe-[0-9a-f]{16}$/);
    expect(h.events.filter((e) => e.event === "tools/call")).toEqual([
      expect.objectContaining({ tool: "write_file", decision: "hidden", code: "E_TOOL_DENIED" }),
      expect.objectContaining({ tool: "no_such_tool", decision: "hidden", code: null }),
    ]);
  });

  it("learns an answer given as a result (the SDK style) just as well", async () => {
    const sdkStyle = (n: string) => ({
      result: { content: [{ type: "text", text: `MCP error -32602: Tool ${n} not found` }], isError: true },
    });
    const h = harness({ hidden: ["write_file"] }, { unknown: sdkStyle });
    await h.handshake();
    const hidden = await h.call(5, "write_file");
    expect(hidden).toEqual({ jsonrpc: "2.0", id: 5, ...sdkStyle("write_file") });
  });

  it("falls back to the SDK's answer when the probe gets no answer", async () => {
    const h = harness({ hidden: ["write_file"] }, { silent: ["tools/call"] });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "write_file" } });
    await new Promise((r) => setTimeout(r, 300));
    await h.settle();
    expect(h.answerTo(5)).toEqual({
      jsonrpc: "2.0",
      id: 5,
      result: {
        content: [{ type: "text", text: "MCP error -32602: Tool write_file not found" }],
        isError: true,
      },
    });
    expect(h.logs.join("\n")).toContain("using the MCP SDK's answer");
  });

  it("explains instead of hiding when the verdict says so", async () => {
    const h = harness({ hidden: ["write_file"], explain: true });
    await h.handshake();
    const answer = await h.call(5, "write_file");
    expect(answer!.result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Blocked by policy: E_TOOL_DENIED tool 'write_file' is denied" }],
      structuredContent: { status: "deny", error_code: "E_TOOL_DENIED", tool: "write_file" },
    });
  });

  it("refuses calls whose obligations it cannot fulfil", async () => {
    const rule = { layer: "policy", kind: "tools.approval_required", value: "read_file" };
    const h = harness({ obligation: { kind: "approval_required", rule } });
    await h.handshake();
    const answer = await h.call(5, "read_file", {});
    expect(answer!.result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "E_APPROVAL_REQUIRED" },
    });
    expect(h.executed).toEqual([]);
  });

  it("forwards everything in a dry run, recording would-deny and would-hide", async () => {
    const h = harness({ hidden: ["write_file"], denied: ["read_file"] }, {}, { dryRun: true });
    await h.handshake();
    await h.call(5, "read_file", {});
    await h.call(6, "write_file", {});
    expect(h.executed).toEqual(["read_file", "write_file"]);
    expect(
      h.events.filter((e) => e.event === "tools/call").map((e) => (e as { decision: string }).decision),
    ).toEqual(["would-deny", "would-hide"]);
  });

  it("denies with E_AUDIT_WRITE instead of forwarding an unrecorded call", async () => {
    const h = harness(
      {},
      {},
      {
        audit: {
          write: () => {
            throw new Error("EIO");
          },
          close: () => {},
        },
      },
    );
    await h.handshake();
    const answer = await h.call(5, "read_file", {});
    expect(answer!.result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "E_AUDIT_WRITE" },
    });
    expect(h.executed).toEqual([]);
    expect(h.logs.join("\n")).toContain("E_AUDIT_WRITE");
  });

  it("passes the session counters before each call to the gate", async () => {
    const h = harness();
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    h.client({ jsonrpc: "2.0", id: 2, method: "ping" });
    await h.settle();
    await h.call(3, "read_file", {});
    await h.call(4, "read_file", {});
    expect(h.gate.calls.map((c) => c.counters)).toEqual([
      { requests: 1, toolCalls: 0 },
      { requests: 2, toolCalls: 1 },
    ]);
  });

  it("answers a tools/call without a string name with invalid params", async () => {
    const h = harness();
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: 7 } });
    await h.settle();
    expect(h.answerTo(5)).toMatchObject({ error: { code: -32602 } });
    expect(h.toServer.some((m) => (m as JsonRpcRequest).id === 5)).toBe(false);
  });

  it("refetches the catalog after list_changed before deciding the next call", async () => {
    const pages: ToolDefinition[][] = [[{ name: "old" }]];
    const h = harness({}, { tools: pages });
    await h.handshake();
    expect(await h.call(5, "new")).toMatchObject({ error: { message: "Unknown tool: new" } });
    pages[0] = [{ name: "new" }];
    h.server({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(h.toClient.at(-1)).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(await h.call(6, "new")).toMatchObject({ result: { content: [{ text: "ran new" }] } });
    expect(await h.call(7, "old")).toMatchObject({ error: { message: "Unknown tool: old" } });
  });

  it("uses every page of the catalog", async () => {
    const h = harness({}, { tools: [[{ name: "a" }], [{ name: "b" }], [{ name: "c" }]] });
    await h.handshake();
    expect(await h.call(5, "c")).toMatchObject({ result: { content: [{ text: "ran c" }] } });
  });

  it("keeps later client messages in order behind a call that waits for the catalog", async () => {
    const h = harness();
    h.client({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
    await h.settle();
    h.client({ jsonrpc: "2.0", method: "notifications/initialized" });
    // No settling: the catalog is still being fetched.
    h.client({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "read_file", arguments: {} } });
    h.client({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } });
    await h.settle();
    const order = h.toServer.filter(
      (m) => (m as JsonRpcRequest).id === 5 || (m as JsonRpcRequest).method === "notifications/cancelled",
    );
    expect(order.map((m) => (m as JsonRpcRequest).method)).toEqual(["tools/call", "notifications/cancelled"]);
  });

  it("refuses calls while the catalog cannot be fetched, naming why", async () => {
    const h = harness({}, { silent: ["tools/list"] });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "read_file", arguments: {} } });
    await new Promise((r) => setTimeout(r, 300));
    await h.settle();
    expect(h.answerTo(5)!.result).toMatchObject({
      isError: true,
      structuredContent: { error_code: "E_CATALOG_UNAVAILABLE" },
    });
    expect(h.executed).toEqual([]);
  });

  it("treats a server without the tools capability as having no tools", async () => {
    const h = harness({}, { capabilities: { prompts: {} } });
    await h.handshake();
    expect(await h.call(5, "read_file", {})).toMatchObject({ error: { message: "Unknown tool: read_file" } });
    expect(h.toServer.filter((m) => (m as JsonRpcRequest).method === "tools/list")).toEqual([]);
    expect(h.executed).toEqual([]);
  });
});

describe("PolicyProxy: everything else", () => {
  it("passes other requests, notifications and both sides' responses through unchanged", async () => {
    const h = harness();
    await h.handshake();
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "x://y" } },
      { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "p" } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
    ];
    for (const m of messages) h.client(m);
    await h.settle();
    for (const m of messages) expect(h.toServer).toContainEqual(m);
    const fromServer = [
      { jsonrpc: "2.0", id: "s1", method: "sampling/createMessage", params: { messages: [] } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
    ];
    for (const m of fromServer) h.server(m);
    for (const m of fromServer) expect(h.toClient).toContainEqual(m);
    h.client({
      jsonrpc: "2.0",
      id: "s1",
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    });
    expect(h.toServer.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: "s1",
      result: { role: "assistant", content: { type: "text", text: "hi" } },
    });
  });

  it("refuses requests over max_requests_total with E_RATE_LIMIT, but never initialize or ping", async () => {
    const h = harness({ requestLimit: 1 });
    await h.handshake();
    h.client({ jsonrpc: "2.0", id: 1, method: "resources/list" });
    h.client({ jsonrpc: "2.0", id: 2, method: "resources/list" });
    h.client({ jsonrpc: "2.0", id: 3, method: "ping" });
    await h.settle();
    expect(h.answerTo(1)).toMatchObject({ result: {} });
    expect(h.answerTo(2)).toMatchObject({
      error: { code: -32000, message: expect.stringContaining("E_RATE_LIMIT") },
    });
    expect(h.answerTo(3)).toMatchObject({ result: {} });
    expect(h.events).toContainEqual(
      expect.objectContaining({
        event: "request",
        method: "resources/list",
        decision: "deny",
        code: "E_RATE_LIMIT",
      }),
    );
  });

  it("answers hostile client frames with errors (under their own id when it is unambiguous) and keeps serving", async () => {
    const h = harness();
    await h.handshake();
    const before = h.toServer.length;
    h.client("{not json");
    h.client('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    h.client(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","name":"write_file"}}',
    );
    h.client(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(80)}${"]".repeat(80)}}}`);
    h.proxy.fromClient({ kind: "oversize", limitBytes: 100 });
    h.client('{"jsonrpc":"2.0","id":1}');
    h.client('"just a string"');
    await h.settle();
    expect(h.toServer.length).toBe(before);
    expect(
      h.toClient.slice(-7).map((m) => [(m as JsonRpcResponse).id, (m as JsonRpcResponse).error?.code]),
    ).toEqual([
      [null, -32700],
      [null, -32600],
      [1, -32600],
      [1, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    h.client({ jsonrpc: "2.0", id: 9, method: "ping" });
    await h.settle();
    expect(h.answerTo(9)).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it("drops hostile server frames, reports them, and keeps serving", async () => {
    const h = harness();
    await h.handshake();
    const before = h.toClient.length;
    h.server("{not json");
    h.server('{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}');
    h.server('[{"jsonrpc":"2.0","method":"x"}]');
    h.proxy.fromServer({ kind: "oversize", limitBytes: 100 });
    expect(h.toClient.length).toBe(before);
    expect(h.logs.filter((l) => l.startsWith("dropped a server frame"))).toHaveLength(4);
    h.client({ jsonrpc: "2.0", id: 9, method: "ping" });
    await h.settle();
    expect(h.answerTo(9)).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it("refuses client ids inside toolgate's private namespace", async () => {
    const h = harness();
    await h.handshake();
    const probe = h.toServer.find((m) => (m as JsonRpcRequest).method === "tools/call") as JsonRpcRequest;
    const privateId = `${String(probe.id).replace(/\d+$/, "")}999`;
    h.client({ jsonrpc: "2.0", id: privateId, method: "ping" });
    await h.settle();
    expect(h.answerTo(privateId)).toMatchObject({ error: { code: -32600 } });
  });
});

describe("PolicyProxy: structured deny and output schemas", () => {
  it("keeps structuredContent when explaining a hidden tool, even one with an outputSchema", async () => {
    const h = harness(
      { hidden: ["t"], explain: true },
      { tools: [[{ name: "t", outputSchema: { type: "object" } } as ToolDefinition]] },
    );
    await h.handshake();
    const answer = await h.call(5, "t", {});
    expect(answer!.result).toMatchObject({
      isError: true,
      structuredContent: { status: "deny", error_code: "E_TOOL_DENIED" },
    });
  });
});

describe("PolicyProxy: the listing/calling invariant (property)", () => {
  it("a tool not in the client's list is never forwarded and is answered like an absent tool", async () => {
    const name = fc.stringMatching(/^[a-z][a-z_]{0,7}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        fc.array(name, { minLength: 1, maxLength: 8 }),
        async (catalog, hiddenFlags, calls) => {
          const hidden = catalog.filter((_, i) => hiddenFlags[i] === true);
          const h = harness({ hidden }, { tools: [catalog.map((n) => ({ name: n }))] });
          await h.handshake();
          h.client({ jsonrpc: "2.0", id: "list", method: "tools/list" });
          await h.settle();
          const listed = new Set(
            (h.answerTo("list")!.result as { tools: ToolDefinition[] }).tools.map((t) => t.name),
          );
          for (const [i, tool] of calls.entries()) {
            const answer = await h.call(100 + i, tool, {});
            if (listed.has(tool)) {
              expect(answer).toEqual({
                jsonrpc: "2.0",
                id: 100 + i,
                result: { content: [{ type: "text", text: `ran ${tool}` }] },
              });
            } else {
              expect(answer).toEqual({
                jsonrpc: "2.0",
                id: 100 + i,
                error: { code: -32602, message: `Unknown tool: ${tool}` },
              });
            }
          }
          expect(h.executed.every((t) => listed.has(t))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
