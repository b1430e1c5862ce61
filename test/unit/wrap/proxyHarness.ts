// The proxy's unit harness: a test double for the policy engine and an in-memory server speaking frames.
import type { AuditEvent } from "../../../src/audit/events.js";
import type { AuditSink } from "../../../src/audit/sink.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../src/engine/rpc/jsonRpc.js";
import { PolicyProxy, type PolicyProxyOptions } from "../../../src/wrap/policyProxy.js";
import type { Decision, SessionCounters } from "../../../src/engine/model/decision.js";
import type { NameVerdict, ToolDefinition, ToolGate } from "../../../src/engine/model/gate.js";

// A test double for the policy engine (a collaborator of the proxy): names in `hidden` are not visible,
// names in `denied` are visible but every call to them is denied, `limit` caps requests.
export interface GateSpec {
  hidden?: string[];
  denied?: string[];
  explain?: boolean;
  requestLimit?: number;
  obligation?: Decision["obligations"][number];
}

export function testGate(
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

export interface ServerSpec {
  tools?: ToolDefinition[][];
  /** The server's answer body for a tool it does not have. */
  unknown?: (name: string) => { result: unknown } | { error: { code: number; message: string } };
  capabilities?: Record<string, unknown>;
  /** Ignore these methods (never answer). */
  silent?: string[];
}

/** An in-memory MCP server speaking to the proxy through frames, answering on a later tick. */
export function harness(
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
