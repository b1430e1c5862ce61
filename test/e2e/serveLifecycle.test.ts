// toolgate serve and its upstream processes: a server that crashes mid-call is answered at once, calls while
// it is down fail fast, it is restarted and the client told to refetch; tools/list_changed is re-announced
// with the same decision; the client's cancellation reaches the server; closing the client stops everything.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { alive, childPids, type Connected } from "./helpers.js";
import { serveStdio, serveWorld, textOf, until, type ServeWorld, type ToolText } from "./serveHelpers.js";

let world: ServeWorld;
let served: Connected;
let listChanged = 0;

beforeAll(async () => {
  world = serveWorld({
    crashy: true,
    config:
      "enabled_mcp_servers: [crashy, everything]\nmcp_tools:\n  crashy: [whoami, crash, add_tool, slow, visible_*]\n",
  });
  served = await serveStdio(world.dir, [], {}, (client) => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  });
});

afterAll(async () => {
  await served?.close();
});

function crashyLog(): string {
  return existsSync(world.crashyLog) ? readFileSync(world.crashyLog, "utf8") : "";
}

async function whoami(): Promise<ToolText> {
  return (await served.client.callTool({ name: "crashy__whoami", arguments: {} })) as ToolText;
}

describe("serve: upstream lifecycle", () => {
  it("answers a call whose server crashes, fails fast while it is down, and restarts it", async () => {
    const first = textOf(await whoami());
    expect(first).toMatch(/^pid \d+$/);
    const before = listChanged;

    let started = Date.now();
    const crashed = (await served.client.callTool({ name: "crashy__crash", arguments: {} })) as ToolText;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(
      /^Blocked by toolgate: E_UPSTREAM_UNAVAILABLE MCP server 'crashy' closed the connection before answering tools\/call/,
    );

    started = Date.now();
    const down = await whoami();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(down.isError).toBe(true);
    expect(textOf(down)).toMatch(
      /^Blocked by toolgate: E_CATALOG_UNAVAILABLE MCP server 'crashy' is unavailable: .*; toolgate retries in \d+ ms$/,
    );

    // Other servers are not affected.
    expect(
      textOf(
        await served.client.callTool({ name: "everything__echo", arguments: { message: "still here" } }),
      ),
    ).toBe("Echo: still here");

    const again = await until(async () => {
      const r = await whoami();
      return r.isError === true ? undefined : textOf(r);
    }, 15_000);
    expect(again).toMatch(/^pid \d+$/);
    expect(again).not.toBe(first);
    await until(() => listChanged > before);
  });

  it("re-announces list_changed when what the client sees changed, and applies the same decision to the new catalog", async () => {
    const before = listChanged;
    await served.client.callTool({ name: "crashy__add_tool", arguments: { name: "visible_new" } });
    await until(() => listChanged >= before + 1);
    // A tool the client cannot see is none of its news: no announcement.
    await served.client.callTool({ name: "crashy__add_tool", arguments: { name: "hidden_new" } });
    await new Promise((r) => setTimeout(r, 1000));
    expect(listChanged).toBe(before + 1);
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("crashy__visible_new");
    expect(names).not.toContain("crashy__hidden_new");
    expect(await served.client.callTool({ name: "crashy__visible_new", arguments: {} })).toEqual({
      content: [{ type: "text", text: "ran visible_new" }],
    });
    expect(await served.client.callTool({ name: "crashy__hidden_new", arguments: {} })).toEqual({
      content: [{ type: "text", text: "MCP error -32602: Tool crashy__hidden_new not found" }],
      isError: true,
    });
    expect(crashyLog()).toContain("call visible_new");
    expect(crashyLog()).not.toContain("call hidden_new");
  });

  it("cancels the server's work when the client cancels", async () => {
    const controller = new AbortController();
    const call = served.client.callTool({ name: "crashy__slow", arguments: { ms: 20_000 } }, undefined, {
      signal: controller.signal,
    });
    await until(() => crashyLog().includes("call slow"));
    controller.abort("the user changed their mind");
    await expect(call).rejects.toThrow();
    await until(() => crashyLog().includes("cancelled"), 5000);
  });

  it("stops every server it started when the client goes away", async () => {
    const pid = served.pid()!;
    const upstreams = childPids(pid);
    expect(upstreams.length).toBe(2);
    await served.close();
    await until(() => !alive(pid), 10_000);
    await until(() => upstreams.every((p) => !alive(p)), 10_000);
  });
});
