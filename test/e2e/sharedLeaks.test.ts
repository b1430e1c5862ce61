// What a server shared by sessions of two principals sends goes only to the session it is for, under each
// "share" setting: a log message sent during B's call reaches B and never A; one sent while both have calls
// in flight reaches neither; a resource update reaches only a session that subscribed to that resource, and
// one session unsubscribing does not unsubscribe another. The server is a small stdio script written here,
// so every byte it sends is the test's. And a change of the tool list is announced on a 2026-07-28
// `subscriptions/listen` stream only to a principal whose own list changed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { childPids, FIXTURES, NODE, tempDir } from "./helpers.js";
import { httpClient, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdefgh";

/** A legacy-era server: `shout {text, delayMs}` logs `shout <text>` then answers after delayMs; `touch {uri}`
 * announces an update of `uri` whether or not anyone subscribed (a server need not be careful). */
const SCRIPT = String.raw`
const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let buffer = "";
process.stdin.on("data", (d) => {
  buffer += d;
  for (let i; (i = buffer.indexOf("\n")) >= 0; ) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line.trim() !== "") handle(JSON.parse(line));
  }
});
const tool = (name) => ({ name, inputSchema: { type: "object" } });
function handle(m) {
  if (m.id === undefined) return;
  const ok = (result) => out({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize":
      return ok({
        protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
        serverInfo: { name: "leaky", version: "1" },
      });
    case "tools/list":
      return ok({ tools: [tool("shout"), tool("touch")] });
    case "resources/list":
      return ok({ resources: [] });
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "logging/setLevel":
    case "ping":
      return ok({});
    case "tools/call": {
      const a = m.params.arguments ?? {};
      if (m.params.name === "shout") {
        out({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "shout " + a.text } });
        return setTimeout(() => ok({ content: [{ type: "text", text: "shouted " + a.text }] }), a.delayMs ?? 0);
      }
      if (m.params.name === "touch") {
        out({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: a.uri } });
        return ok({ content: [{ type: "text", text: "touched" }] });
      }
      return ok({ content: [{ type: "text", text: "no such tool" }], isError: true });
    }
    default:
      return out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
}
`;

const dir = tempDir("tg-leaks-");
const script = join(dir, "leaky.mjs");
writeFileSync(script, SCRIPT);
const config = configDir({
  "mcp.json": mcpJson({
    shared_all: { command: NODE, args: [script], share: "all" },
    shared_principal: { command: NODE, args: [script], share: "principal" },
    shared_session: { command: NODE, args: [script], share: "session" },
  }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "tokens.yaml": `- name: alice\n  token: ${ALICE}\n- name: bob\n  token: ${BOB}\n`,
});

interface Heard {
  logs: string[];
  updates: string[];
}

let served: HttpServe;
const clients: Client[] = [];

async function session(token: string): Promise<{ client: Client; heard: Heard }> {
  const { client } = await httpClient(served.url, token);
  const heard: Heard = { logs: [], updates: [] };
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (n) => void heard.logs.push(String(n.params.data)),
  );
  client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    (n) => void heard.updates.push(n.params.uri),
  );
  clients.push(client);
  return { client, heard };
}

beforeAll(async () => {
  served = await serveHttp(config, ["--tokens", join(config, "tokens.yaml")]);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await served.stop();
});

const settle = () => new Promise((r) => setTimeout(r, 700));

describe.each(["all", "principal", "session"])('a server with "share": "%s"', (share) => {
  let a: { client: Client; heard: Heard };
  let b: { client: Client; heard: Heard };
  const call = (c: Client, tool: string, args: Record<string, unknown>) =>
    c.callTool({ name: `shared_${share}__${tool}`, arguments: args });

  beforeAll(async () => {
    a = await session(ALICE);
    b = await session(BOB);
    for (const s of [a, b]) expect((await s.client.listTools()).tools.length).toBe(6);
    if (share === "all") expect(childPids(served.proc.pid!).length).toBeGreaterThanOrEqual(1);
  });

  it("a log message sent during B's call reaches B, never A", async () => {
    expect(textOf(await call(b.client, "shout", { text: `b-${share}`, delayMs: 200 }))).toBe(
      `shouted b-${share}`,
    );
    await until(() => b.heard.logs.some((l) => l.includes(`shout b-${share}`)));
    await settle();
    expect(a.heard.logs.join("\n")).not.toContain(`b-${share}`);
  });

  it("one sent while both have calls in flight reaches only the session it was for, or neither", async () => {
    await Promise.all([
      call(a.client, "shout", { text: `a2-${share}`, delayMs: 600 }),
      call(b.client, "shout", { text: `b2-${share}`, delayMs: 600 }),
    ]);
    await settle();
    expect(a.heard.logs.join("\n")).not.toContain(`b2-${share}`);
    expect(b.heard.logs.join("\n")).not.toContain(`a2-${share}`);
  });

  it("a resource update reaches only a session that subscribed to it; unsubscribing one leaves the other", async () => {
    const uri = `toolgate://shared_${share}/leak://a`;
    await a.client.subscribeResource({ uri });
    await call(b.client, "touch", { uri: "leak://a" });
    await call(a.client, "touch", { uri: "leak://a" });
    await until(() => a.heard.updates.includes(uri));
    await settle();
    expect(b.heard.updates).toEqual([]);
    if (share === "all") {
      // b subscribes and unsubscribes: the shared server stays subscribed for a.
      await b.client.subscribeResource({ uri });
      await b.client.unsubscribeResource({ uri });
      const before = a.heard.updates.length;
      await call(b.client, "touch", { uri: "leak://a" });
      await until(() => a.heard.updates.length > before);
      await settle();
      expect(b.heard.updates).toEqual([]);
    }
  });
});

describe("subscriptions/listen (2026-07-28) announces only a principal's own list changes", () => {
  let listening: HttpServe;
  const READER = "reader-token-0123456789abcdef";
  const GROWER = "grower-token-0123456789abcdef";
  const open: ModernClient[] = [];
  beforeAll(async () => {
    const cfg = configDir({
      "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")], share: "all" } }),
      "config.yaml": "enabled_mcp_servers: all\n",
      "roles/reader.md": "---\nmcp_tools:\n  m: [echo, grow]\n---\n",
      "tokens.yaml": `- name: reader\n  token: ${READER}\n  role: reader\n- name: grower\n  token: ${GROWER}\n`,
    });
    listening = await serveHttp(cfg, ["--tokens", join(cfg, "tokens.yaml")]);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await listening.stop();
  });

  async function modern(token: string): Promise<{ client: ModernClient; changes: { n: number } }> {
    const client = new ModernClient(
      { name: "listen-e2e", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const changes = { n: 0 };
    client.setNotificationHandler("notifications/tools/list_changed", () => void changes.n++);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listening.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    open.push(client);
    return { client, changes };
  }

  it("a tool the reader's role hides appears: the grower hears of it, the reader does not", async () => {
    const reader = await modern(READER);
    const grower = await modern(GROWER);
    expect((await reader.client.listTools()).tools.map((t) => t.name).sort()).toEqual(["m__echo", "m__grow"]);
    await grower.client.listTools();
    void reader.client.listen({ toolsListChanged: true }).catch(() => {});
    void grower.client.listen({ toolsListChanged: true }).catch(() => {});
    await settle();
    await grower.client.callTool({ name: "m__grow", arguments: {} });
    await until(() => grower.changes.n > 0, 15_000).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${listening.stderr()}`);
    });
    await settle();
    expect(reader.changes.n).toBe(0);
    expect((await grower.client.listTools()).tools.map((t) => t.name)).toContain("m__extra");
    expect((await reader.client.listTools()).tools.map((t) => t.name)).not.toContain("m__extra");
  });
});
