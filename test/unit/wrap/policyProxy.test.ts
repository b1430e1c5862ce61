// The proxy's lists and calls, against the unit harness (proxyHarness.ts).
import { describe, expect, it } from "vitest";
import type { JsonRpcRequest } from "../../../src/engine/rpc/jsonRpc.js";
import type { ToolDefinition } from "../../../src/engine/model/gate.js";
import { harness } from "./proxyHarness.js";

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
