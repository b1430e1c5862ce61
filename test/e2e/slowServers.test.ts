// Servers start slowly (an npx cold start takes 20 s, a Python server several): a server that sleeps 10 s
// before it answers is wrapped, initialised (policy init) and served — serve answers at once with the servers
// that are up and announces the late one (tools/list_changed) once its catalog is in, and a call to it
// waits for it. A server slower than its startup_timeout gets one message that names the setting, nothing
// contradicting it. The slow server is the real server-memory behind `sh -c "sleep 10; exec …"`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { connect, NODE, tempDir, wrapCommand, type Connected } from "./helpers.js";
import { MEMORY_SERVER, serveStdio, textOf } from "./serveHelpers.js";

const SLEEP_S = 10;
/** server-memory after a 10 s sleep: it reads nothing until then, as a server that is still loading. */
const slow = (seconds = SLEEP_S): string[] => [
  "sh",
  "-c",
  `sleep ${seconds}; exec "$0" "$@"`,
  NODE,
  MEMORY_SERVER,
];

const open: Connected[] = [];
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
});

describe("a server that takes 10 s to start", () => {
  it("is wrapped: the client's handshake and list simply take that long", async () => {
    const started = Date.now();
    const spec = wrapCommand([], slow());
    const wrapped = await connect({ command: spec.command, args: spec.args });
    open.push(wrapped);
    const names = (await wrapped.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("read_graph");
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLEEP_S * 1000 - 500);
  }, 90_000);

  it("is installed: install reads its catalog once it is up, and writes its entry and starter policy", async () => {
    const home = tempDir("tg-slow-install-");
    const file = join(home, "claude_desktop_config.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { memory: { command: slow()[0], args: slow().slice(1) } } }),
    );
    const run = await runCli(["install", "claude-desktop", "--config", file], {
      timeoutMs: 90_000,
      env: { HOME: home, TOOLGATE_CONFIG_DIR: join(home, "toolgate") },
    });
    expect(run.code, run.stderr).toBe(0);
    const entry = (
      JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, { args: string[] }> }
    ).mcpServers.memory!;
    expect(entry.args).toContain("wrap");
    const policy = readdirSync(join(home, "toolgate"), { recursive: true, encoding: "utf8" }).find((f) =>
      f.endsWith(".yaml"),
    );
    expect(policy).toBeDefined();
    expect(readFileSync(join(home, "toolgate", policy!), "utf8")).toContain("read_graph");
  }, 90_000);

  it("is read by policy init", async () => {
    const run = await runCli(["policy", "init", "--", ...slow()], { timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("read_graph");
  }, 90_000);

  it("is listed by serve once it is up, and announced to the client already connected", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({
        fast: { command: NODE, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(tempDir(), "m.jsonl") } },
        late: {
          command: slow()[0],
          args: slow().slice(1),
          env: { MEMORY_FILE_PATH: join(tempDir(), "l.jsonl") },
        },
      }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    let announced = 0;
    const served = await serveStdio(dir, ["--list-wait", "5000"], {}, (client) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void announced++),
    );
    open.push(served);
    const started = Date.now();
    const first = (await served.client.listTools()).tools.map((t) => t.name);
    // Answered without waiting for the late server (the fast one is in, unless the machine is so loaded
    // that it too takes longer than the list's wait: then it is announced as well).
    expect(Date.now() - started).toBeLessThan(SLEEP_S * 1000);
    expect(first.some((n) => n.startsWith("late__"))).toBe(false);
    await expect.poll(() => announced, { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
    const later = await expect
      .poll(async () => (await served.client.listTools()).tools.map((t) => t.name), {
        timeout: 60_000,
        interval: 500,
      })
      .toEqual(expect.arrayContaining(["fast__read_graph", "late__read_graph"]));
    void later;
    expect(textOf(await served.client.callTool({ name: "late__read_graph", arguments: {} }))).toContain(
      "entities",
    );
  }, 90_000);

  it("a call to a server still starting waits for it", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({
        late: {
          command: slow()[0],
          args: slow().slice(1),
          env: { MEMORY_FILE_PATH: join(tempDir(), "w.jsonl") },
        },
      }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const served = await serveStdio(dir);
    open.push(served);
    const result = await served.client.callTool({ name: "late__read_graph", arguments: {} }, undefined, {
      timeout: 60_000,
    });
    expect(textOf(result)).toContain("entities");
  }, 90_000);
});

describe("a server slower than its startup_timeout", () => {
  const message = /did not answer within 3 s \(startup_timeout\)/;

  it("serve: its calls are refused with the one message naming the setting", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ late: { command: slow()[0], args: slow().slice(1), startup_timeout: 3 } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const served = await serveStdio(dir);
    open.push(served);
    const result = textOf(
      await served.client.callTool({ name: "late__read_graph", arguments: {} }, undefined, {
        timeout: 60_000,
      }),
    );
    expect(result).toMatch(message);
    expect(result).toContain('"startup_timeout"');
    expect(result).not.toMatch(/initialize within|5000ms|30000 ms/);
  }, 90_000);

  it("wrap: the waiting handshake is answered with it, and stderr says it", async () => {
    const spec = wrapCommand(["--startup-timeout", "3"], slow());
    const attempt = connect({ command: spec.command, args: spec.args });
    await expect(attempt).rejects.toThrow(message);
  }, 90_000);

  it("policy init: exit 1 with E_UPSTREAM_START naming --startup-timeout", async () => {
    const run = await runCli(["policy", "init", "--startup-timeout", "3", "--", ...slow()], {
      timeoutMs: 90_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain("E_UPSTREAM_START");
    expect(run.stderr).toContain("--startup-timeout");
  }, 90_000);
});
