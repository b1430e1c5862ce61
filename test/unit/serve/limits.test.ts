// Limits count per client session (docs/design.md, our choices): max_tool_calls_total counts calls that go to a tool (direct
// calls, meta invoke); max_requests_total counts every other request too (lists, meta search and describe).
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { GatewaySession } from "../../../src/serve/gatewaySession.js";
import type { ServeMode } from "../../../src/serve/serveMode.js";
import { DEFAULT_BACKOFF } from "../../../src/upstream/upstreamLink.js";
import { fakeConnect, stdioConfig, type FakeCatalogs } from "./fakeUpstream.js";
import { linkedPair } from "./inMemory.js";

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

async function session(mode: ServeMode, limits: string, catalogs: FakeCatalogs): Promise<Client> {
  const { policy } = loadPolicyText(
    "limits.yaml",
    `version: "2.0"\ntools:\n  allow: ["*"]\nenforcement:\n  unconstrained_tools: allow\nlimits:\n${limits}`,
  );
  const gate = createPolicyGate(compilePolicy(policy!));
  const s = new GatewaySession({
    mode,
    context: {
      client: "t",
      selection: { skills: [] },
      servers: [stdioConfig("srv")],
      gates: new Map([["srv", gate]]),
      policy: gate,
    },
    sessionId: "limits",
    audit: null,
    connect: fakeConnect(catalogs),
    upstreamTimeoutMs: 5000,
    requestTimeoutMs: 5000,
    backoff: DEFAULT_BACKOFF,
    log: () => {},
  });
  const [a, b] = linkedPair();
  await s.connect(b);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(a);
  open.push(async () => {
    await client.close();
    await s.close();
  });
  return client;
}

type Result = { isError?: boolean; structuredContent?: { error_code?: string } };

describe("serve: limits per client session", () => {
  it("max_tool_calls_total refuses the call after the limit with E_RATE_LIMIT, per session", async () => {
    const catalogs: FakeCatalogs = { tools: { srv: ["t"] }, executed: [] };
    const first = await session("direct", "  max_tool_calls_total: 2\n", catalogs);
    const second = await session("direct", "  max_tool_calls_total: 2\n", catalogs);
    for (let i = 0; i < 2; i++)
      expect((await first.callTool({ name: "srv__t", arguments: {} })).isError).toBeUndefined();
    const third = (await first.callTool({ name: "srv__t", arguments: {} })) as Result;
    expect(third.isError).toBe(true);
    expect(third.structuredContent?.error_code).toBe("E_RATE_LIMIT");
    expect(catalogs.executed).toEqual(["srv:t", "srv:t"]);
    // Another session has its own count.
    expect((await second.callTool({ name: "srv__t", arguments: {} })).isError).toBeUndefined();
    expect(catalogs.executed).toHaveLength(3);
  });

  it("max_requests_total counts lists and refuses them with a JSON-RPC error", async () => {
    const client = await session("direct", "  max_requests_total: 2\n", {
      tools: { srv: ["t"] },
      executed: [],
    });
    await client.listTools();
    await client.listPrompts();
    await expect(client.listTools()).rejects.toThrow(/Request refused by policy: E_RATE_LIMIT limit reached/);
  });

  it("meta mode: search and describe are requests, invoke is a tool call", async () => {
    const catalogs: FakeCatalogs = { tools: { srv: ["t"] }, executed: [] };
    const client = await session("meta", "  max_tool_calls_total: 1\n  max_requests_total: 4\n", catalogs);
    expect(
      (await client.callTool({ name: "mcp_search_srv", arguments: { query: "t" } })).isError,
    ).toBeUndefined();
    expect(
      (await client.callTool({ name: "mcp_describe_srv", arguments: { tool: "t" } })).isError,
    ).toBeUndefined();
    expect(
      (await client.callTool({ name: "mcp_invoke_srv", arguments: { tool: "t" } })).isError,
    ).toBeUndefined();
    const again = (await client.callTool({ name: "mcp_invoke_srv", arguments: { tool: "t" } })) as Result;
    expect(again.structuredContent?.error_code).toBe("E_RATE_LIMIT");
    const search = (await client.callTool({ name: "mcp_search_srv", arguments: { query: "t" } })) as Result;
    expect(search.structuredContent?.error_code).toBe("E_RATE_LIMIT");
    expect(catalogs.executed).toEqual(["srv:t"]);
  });
});
