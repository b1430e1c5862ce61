// Shared upstream servers under serve --http: sessions of one token share one process per server (three
// sessions over two servers are two processes, not six); "share": "session" gives each session its own;
// "share": "all" one for every token; another token gets its own. A shared server's request goes to the
// session with a call in flight to it, and is refused when that cannot be told (two sessions busy).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { childPids, EVERYTHING_SERVER, FIXTURES, NODE } from "./helpers.js";
import { httpClient, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";
import { join } from "node:path";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdefgh";
const dir = configDir({
  "mcp.json": mcpJson({
    everything: { command: NODE, args: [EVERYTHING_SERVER] },
    mine: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")], share: "session" },
    common: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")], share: "all" },
  }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "tokens.yaml": `- name: alice\n  token: ${ALICE}\n- name: bob\n  token: ${BOB}\n`,
});

let served: HttpServe;
const clients: Client[] = [];
beforeAll(async () => {
  served = await serveHttp(dir, ["--tokens", join(dir, "tokens.yaml")]);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await served.stop();
});

const ends = new Map<Client, () => Promise<void>>();

async function session(token: string, answer: string, asked: string[]): Promise<Client> {
  const { client, transport } = await httpClient(served.url, token, { capabilities: { sampling: {} } });
  ends.set(client, () => transport.terminateSession());
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked.push(answer);
    return { role: "assistant", model: "m", content: { type: "text", text: `from ${answer}` } };
  });
  clients.push(client);
  return client;
}

describe("shared upstream servers", () => {
  const asked: string[] = [];
  let a1: Client, a2: Client, a3: Client, b1: Client;

  it("one token's three sessions share one process per server; share: session and share: all are honoured", async () => {
    [a1, a2, a3] = [
      await session(ALICE, "a1", asked),
      await session(ALICE, "a2", asked),
      await session(ALICE, "a3", asked),
    ];
    for (const c of [a1, a2, a3]) expect((await c.listTools()).tools.length).toBeGreaterThan(10);
    // everything ×1 (shared by alice's sessions), mine ×3 (one per session), common ×1.
    await until(() => childPids(served.proc.pid!).length === 5);
    b1 = await session(BOB, "b1", asked);
    await b1.listTools();
    // bob: his own everything and his own mine; common is everyone's.
    await until(() => childPids(served.proc.pid!).length === 7);
  });

  it("a shared server's sampling request goes to the session whose call is in flight", async () => {
    const result = await a2.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    });
    expect(textOf(result)).toContain("from a2");
    expect(asked).toEqual(["a2"]);
  });

  it("when two sessions have calls in flight to the server, its request is refused, never sent to either", async () => {
    const long = a1.callTool({
      name: "everything__trigger-long-running-operation",
      arguments: { duration: 2, steps: 2 },
    });
    await new Promise((r) => setTimeout(r, 300));
    const sampled = await a3.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    });
    expect(JSON.stringify(sampled)).toContain(
      "cannot tell which client sampling/createMessage of MCP server 'everything' is for (2 clients have requests in flight to it)",
    );
    expect(asked).toEqual(["a2"]);
    expect(textOf(await long)).toContain("Long running operation completed");
  });

  it("the last session of a token to close stops its shared server", async () => {
    const before = childPids(served.proc.pid!).length;
    await ends.get(b1)!();
    await b1.close();
    // bob's everything and his mine stop; common stays (alice uses it).
    await until(() => childPids(served.proc.pid!).length === before - 2);
  });
});
