// The proxy's pass-through, structured denies and the listing/calling invariant, against the unit harness.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonRpcRequest, JsonRpcResponse } from "../../../src/engine/rpc/jsonRpc.js";
import type { ToolDefinition } from "../../../src/engine/model/gate.js";
import { harness } from "./proxyHarness.js";

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
