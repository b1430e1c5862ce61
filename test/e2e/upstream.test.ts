// connectUpstream against real servers over each transport mcp.json allows, and how it fails.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../../src/engine/model/mcpServers.js";
import { ToolgateError } from "../../src/engine/errors.js";
import { capabilityNames, connectUpstream, type Upstream } from "../../src/upstream/upstream.js";
import { createCatalogServer } from "../fixtures/servers/catalogServer.mjs";
import { serveSse, serveStreamableHttp, type HttpFixture } from "./httpFixture.js";
import { EVERYTHING_SERVER, NODE, ROOT } from "./helpers.js";

const CATALOG_SERVER = join(ROOT, "test/fixtures/servers/catalogServer.mjs");
const at = { file: "mcp.json", path: "", line: 1, column: 1 };

function stdio(name: string, command: string, args: string[], cwd: string | null = null): McpServerConfig {
  return {
    name,
    at,
    transport: "stdio",
    command,
    args,
    env: {},
    cwd,
    allowedTools: null,
    allowedToolsAt: null,
  };
}
function remote(name: string, transport: "http" | "sse", url: string, headers = {}): McpServerConfig {
  return { name, at, transport, url, headers, allowedTools: null, allowedToolsAt: null };
}

const open: Upstream[] = [];
const fixtures: HttpFixture[] = [];
afterAll(async () => {
  await Promise.all(open.map((u) => u.close()));
  await Promise.all(fixtures.map((f) => f.close()));
});

async function connected(server: McpServerConfig, timeoutMs?: number): Promise<Upstream> {
  const upstream = await connectUpstream(server, timeoutMs === undefined ? {} : { timeoutMs });
  open.push(upstream);
  return upstream;
}

async function failure(p: Promise<unknown>): Promise<ToolgateError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolgateError);
  return error as ToolgateError;
}

/** Pids of processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe("connectUpstream over stdio", () => {
  it("starts server-everything, reports its capabilities and info, and lists every tool", async () => {
    const upstream = await connected(stdio("everything", NODE, [EVERYTHING_SERVER]));
    expect(upstream.transport).toBe("stdio");
    expect(upstream.pid()).toBeGreaterThan(0);
    expect(capabilityNames(upstream.capabilities).slice(0, 3)).toEqual(["tools", "resources", "prompts"]);
    expect(upstream.serverInfo.name).toMatch(/everything/i);
    const names = (await upstream.listAllTools()).map((t) => t.name);
    const direct = (await upstream.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(direct);
    expect(names).toContain("echo");
  });

  it("follows every nextCursor page, in order", async () => {
    const tools = Array.from({ length: 10 }, (_, i) => `tool_${i}`);
    const upstream = await connected(
      stdio(
        "paged",
        NODE,
        ["catalogServer.mjs", "--page-size", "3", ...tools],
        join(ROOT, "test/fixtures/servers"),
      ),
    );
    const first = (await upstream.listToolsPage(undefined)).result as {
      tools: unknown[];
      nextCursor?: string;
    };
    expect(first.tools).toHaveLength(3);
    expect(first.nextCursor).toBe("page-3");
    expect((await upstream.listAllTools()).map((t) => t.name)).toEqual(tools);
  });

  it("resolves a relative cwd against baseDir", async () => {
    const upstream = await connectUpstream(
      stdio("rel", NODE, ["catalogServer.mjs", "only_tool"], "servers"),
      {
        baseDir: join(ROOT, "test/fixtures"),
      },
    );
    open.push(upstream);
    expect((await upstream.listAllTools()).map((t) => t.name)).toEqual(["only_tool"]);
    expect(capabilityNames(upstream.capabilities)).toEqual(["tools"]);
  });

  it("close() ends the child process and settles `closed`", async () => {
    const upstream = await connectUpstream(stdio("closing", NODE, [CATALOG_SERVER, "a"]));
    const pid = upstream.pid()!;
    await upstream.close();
    await upstream.closed;
    expect(processesWith(CATALOG_SERVER).includes(pid)).toBe(false);
  });

  it("a command that does not exist: E_UPSTREAM_CONNECT naming the server and the reason", async () => {
    const error = await failure(connectUpstream(stdio("ghost", "tg-no-such-command-xyz", ["--flag"])));
    expect(error.code).toBe("E_UPSTREAM_CONNECT");
    expect(error.message).toContain("MCP server 'ghost' (stdio: tg-no-such-command-xyz --flag)");
    expect(error.message).toContain("was not found (spawn ENOENT)");
  });

  it("a server that exits at once: the reason carries what it wrote on stderr", async () => {
    const script = "process.stderr.write('config missing: FOO_TOKEN\\n'); process.exit(3)";
    const error = await failure(connectUpstream(stdio("dies", NODE, ["-e", script])));
    expect(error.code).toBe("E_UPSTREAM_CONNECT");
    expect(error.message).toContain("MCP server 'dies'");
    expect(error.message).toContain("config missing: FOO_TOKEN");
  });

  it("a server that never answers: bounded by the timeout, and nothing is left running", async () => {
    const marker = `tg-silent-${process.pid}-${Date.now()}`;
    const script = `setInterval(() => {}, 1000); // ${marker}`;
    const started = Date.now();
    const error = await failure(
      connectUpstream(stdio("silent", NODE, ["-e", script]), { startupTimeoutMs: 400 }),
    );
    expect(error.code).toBe("E_UPSTREAM_START");
    expect(error.message).toContain("did not answer within 0.4 s (startup_timeout)");
    expect(Date.now() - started).toBeLessThan(10_000);
    for (let i = 0; i < 50 && processesWith(marker).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(processesWith(marker)).toEqual([]);
  });
});

describe("connectUpstream over HTTP", () => {
  it("http: Streamable HTTP with the entry's headers on every request", async () => {
    const fixture = await serveStreamableHttp(() => createCatalogServer(["get_issue", "list_issues"]));
    fixtures.push(fixture);
    const upstream = await connected(remote("github", "http", fixture.url, { Authorization: "Bearer t0k" }));
    expect(upstream.transport).toBe("http");
    expect(capabilityNames(upstream.capabilities)).toEqual(["tools"]);
    expect((await upstream.listAllTools()).map((t) => t.name)).toEqual(["get_issue", "list_issues"]);
    expect(fixture.headers.length).toBeGreaterThanOrEqual(2);
    for (const h of fixture.headers) expect(h.authorization).toBe("Bearer t0k");
  });

  it("sse: the legacy transport, headers on the stream and on each POST", async () => {
    const fixture = await serveSse(() => createCatalogServer(["search_code"], { pageSize: 1 }));
    fixtures.push(fixture);
    const upstream = await connected(remote("legacy", "sse", fixture.url, { "X-Api-Key": "k1" }));
    expect(upstream.transport).toBe("sse");
    expect((await upstream.listAllTools()).map((t) => t.name)).toEqual(["search_code"]);
    expect(fixture.headers.some((h) => h.accept === "text/event-stream")).toBe(true);
    for (const h of fixture.headers) expect(h["x-api-key"]).toBe("k1");
  });

  it("a refused connection: E_UPSTREAM_CONNECT naming the URL without its query", async () => {
    const fixture = await serveStreamableHttp(() => createCatalogServer([]));
    const url = fixture.url;
    await fixture.close();
    const error = await failure(
      connectUpstream(remote("down", "http", `${url}?token=secret`), { timeoutMs: 5000 }),
    );
    expect(error.code).toBe("E_UPSTREAM_CONNECT");
    expect(error.message).toContain(`MCP server 'down' (http: ${url})`);
    expect(error.message).not.toContain("secret");
  });

  it("a server that repeats a cursor: E_UPSTREAM_TOOLS instead of paging forever", async () => {
    const fixture = await serveStreamableHttp(() => {
      const server = new Server({ name: "loop", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: "t", inputSchema: { type: "object" as const } }],
        nextCursor: "again",
      }));
      return server;
    });
    fixtures.push(fixture);
    const upstream = await connected(remote("loop", "http", fixture.url));
    const error = await failure(upstream.listAllTools());
    expect(error.code).toBe("E_UPSTREAM_TOOLS");
    expect(error.message).toContain("MCP server 'loop' could not list its tools");
    expect(error.message).toContain("'again' a second time");
  });
});
