import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { allowAllGate } from "../../../src/engine/policy/policyGate.js";
import { GatewaySession } from "../../../src/serve/gatewaySession.js";
import { DEFAULT_BACKOFF } from "../../../src/upstream/upstreamLink.js";
import { fakeConnect, stdioConfig } from "./fakeUpstream.js";

async function connected(
  server: { connect(t: InMemoryTransport): Promise<void> } | GatewaySession,
): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await (server as { connect(t: unknown): Promise<void> }).connect(b);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(a);
  return client;
}

describe("direct mode answers a hidden or missing tool exactly as an MCP SDK server answers a missing one", () => {
  it("matches McpServer's own answer, for names with and without a known server", async () => {
    const sdk = new McpServer({ name: "sdk", version: "1" });
    sdk.registerTool("echo", { description: "echo" }, async () => ({
      content: [{ type: "text", text: "echo" }],
    }));
    const sdkClient = await connected(sdk);

    const session = new GatewaySession({
      mode: "direct",
      context: {
        client: "t",
        selection: { skills: [] },
        servers: [stdioConfig("srv")],
        gates: new Map([["srv", allowAllGate()]]),
        policy: allowAllGate(),
      },
      sessionId: "u",
      audit: null,
      connect: fakeConnect({ tools: { srv: ["real"] }, executed: [] }),
      upstreamTimeoutMs: 5000,
      requestTimeoutMs: 5000,
      backoff: DEFAULT_BACKOFF,
      log: () => {},
    });
    const client = await connected(session);
    try {
      for (const name of ["srv__missing", "other__tool", "no-separator", "srv__"]) {
        const fromSdk = await sdkClient.callTool({ name, arguments: {} });
        const fromServe = await client.callTool({ name, arguments: {} });
        expect(fromServe).toEqual(fromSdk);
        expect(fromServe).toEqual({
          content: [{ type: "text", text: `MCP error -32602: Tool ${name} not found` }],
          isError: true,
        });
      }
    } finally {
      await client.close();
      await session.close();
      await sdkClient.close();
    }
  });
});
