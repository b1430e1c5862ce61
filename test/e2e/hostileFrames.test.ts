// A hostile server, written here so every byte is under the test's control, against wrap and serve: answers
// nested 6,000 levels deep, answers with duplicate keys, two answers to one request, a tools/list nested
// too deep. Each call gets one prompt answer (an error for the refused ones); nothing hangs; the other
// servers of a serve are still listed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { connect, EVERYTHING_SERVER, NODE, tempDir, wrapCommand, type Connected } from "./helpers.js";
import { serveStdio, textOf } from "./serveHelpers.js";

const HOSTILE = `
const deep = (n) => "[".repeat(n) + "]".repeat(n);
let buffer = "";
const send = (text) => process.stdout.write(text + "\\n");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === "") continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const id = JSON.stringify(m.id);
    if (m.method === "initialize") {
      send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } }));
    } else if (m.method === "tools/list") {
      if (process.env.HOSTILE_LIST === "deep") send('{"jsonrpc":"2.0","id":' + id + ',"result":{"tools":[],"x":' + deep(6000) + "}}");
      else send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { tools: ["deep", "dupkey", "twice", "ok"].map((name) => ({ name, inputSchema: { type: "object" } })) } }));
    } else if (m.method === "tools/call") {
      const name = m.params.name;
      const ok = (text) => JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text }] } });
      if (name === "deep") send('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[],"x":' + deep(6000) + "}}");
      else if (name === "dupkey") send('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"first"}],"content":[{"type":"text","text":"second"}]}}');
      else if (name === "twice") { send(ok("first answer")); send(ok("second answer")); }
      else if (name === "ok") send(ok("fine"));
      else send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "Tool " + name + " not found" }], isError: true } }));
    } else {
      send(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} }));
    }
  }
});
`;

const dir = tempDir("tg-hostile-");
const hostile = join(dir, "hostile.cjs");
writeFileSync(hostile, HOSTILE);

const open: Connected[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

type Surface = { name: string; start: () => Promise<Connected>; tool: (t: string) => string };
const surfaces: Surface[] = [
  { name: "wrap", start: () => connect(wrapCommand([], [NODE, hostile])), tool: (t) => t },
  {
    name: "serve",
    start: () =>
      serveStdio(
        configDir({
          "mcp.json": mcpJson({ bad: { command: NODE, args: [hostile] } }),
          "config.yaml": "enabled_mcp_servers: all\n",
        }),
      ),
    tool: (t) => `bad__${t}`,
  },
];

describe.each(surfaces)("$name in front of a hostile server", (surface) => {
  let c: Connected;
  const call = async (tool: string) => {
    const started = Date.now();
    try {
      const result = await c.client.callTool({ name: surface.tool(tool), arguments: {} }, undefined, {
        timeout: 8000,
      });
      return { ms: Date.now() - started, result, error: null as string | null };
    } catch (error) {
      return { ms: Date.now() - started, result: null, error: (error as Error).message };
    }
  };

  it("an answer nested 6,000 levels deep is refused with a prompt error, and the session goes on", async () => {
    c = await surface.start();
    open.push(c);
    const deep = await call("deep");
    expect(deep.ms).toBeLessThan(5000);
    expect(deep.error ?? "").toMatch(/refused the server's (answer|frame)|nested deeper/);
    expect(textOf((await call("ok")).result)).toBe("fine");
  });

  it("an answer with duplicate keys is refused (never read last-one-wins)", async () => {
    const dup = await call("dupkey");
    expect(dup.ms).toBeLessThan(5000);
    expect(dup.error ?? "").toMatch(/duplicate/i);
  });

  it("a second answer to the same request is dropped: the client sees the first", async () => {
    expect(textOf((await call("twice")).result)).toBe("first answer");
    expect(textOf((await call("ok")).result)).toBe("fine");
  });
});

describe("serve with one server whose tools/list is nested too deep", () => {
  it("lists the other servers' tools at once", async () => {
    const served = await serveStdio(
      configDir({
        "mcp.json": mcpJson({
          bad: { command: NODE, args: [hostile], env: { HOSTILE_LIST: "deep" } },
          everything: { command: NODE, args: [EVERYTHING_SERVER] },
        }),
        "config.yaml": "enabled_mcp_servers: all\n",
      }),
      // The list waits for servers still starting long enough for everything on a loaded machine; the bad
      // server's refused list is no wait at all.
      ["--list-wait", "20000"],
    );
    open.push(served);
    const names = (await served.client.listTools(undefined, { timeout: 25_000 })).tools.map((t) => t.name);
    expect(names).toContain("everything__echo");
    expect(names.some((n) => n.startsWith("bad__"))).toBe(false);
  });
});
