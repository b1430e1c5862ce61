// toolgate serve --http: two concurrent SDK clients with different tokens (and so different roles) see
// different tools; sampling and progress travel back on the right client's streams; bad tokens (401), hosts
// and origins (403), oversized bodies (413) and other sessions' ids (404) are refused; start-up refuses to
// run without a token.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { runCli } from "./configDirHelpers.js";
import {
  httpClient,
  rawHttp,
  serveHttp,
  serveWorld,
  textOf,
  type HttpServe,
  type RawAnswer,
  type ServeWorld,
} from "./serveHelpers.js";

const REVIEWER = "reviewer-token-0123456789";
const WRITER = "writer-token-0123456789ab";
const sha = (t: string): string => createHash("sha256").update(t).digest("hex");

let world: ServeWorld;
let served: HttpServe;
const clients: Client[] = [];

beforeAll(async () => {
  world = serveWorld({
    files: {
      "roles/reviewer.md": "---\nmcp_tools:\n  fs: [read_*, list_*]\n  memory: []\n---\nReads only.\n",
      "tokens.yaml": [
        "- name: reviewer",
        `  token_sha256: ${sha(REVIEWER)}`,
        "  role: reviewer",
        "- name: writer",
        `  token: ${WRITER}`,
        "",
      ].join("\n"),
    },
  });
  served = await serveHttp(world.dir, [
    "--tokens",
    `${world.dir}/tokens.yaml`,
    "--allowed-origin",
    "https://app.example",
    "--max-body-bytes",
    "65536",
  ]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await served?.stop();
});

async function client(token: string, capabilities: Parameters<typeof httpClient>[2] = {}): Promise<Client> {
  const { client } = await httpClient(served.url, token, capabilities);
  clients.push(client);
  return client;
}

/** One HTTP request to the served endpoint with exactly these headers and body. */
const raw = (
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  options: { chunks?: Buffer[]; path?: string } = {},
): Promise<RawAnswer> => rawHttp(served.url, method, headers, body, options);

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const postHeaders = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra,
});

describe("serve --http: sessions and contexts", () => {
  it("gives two concurrent clients the tools of their own token's context", async () => {
    const [reviewer, writer] = await Promise.all([client(REVIEWER), client(WRITER)]);
    const [r, w] = await Promise.all([reviewer.listTools(), writer.listTools()]);
    const reviewerNames = r.tools.map((t) => t.name);
    const writerNames = w.tools.map((t) => t.name);
    expect(reviewerNames).toContain("fs__read_text_file");
    expect(reviewerNames).not.toContain("fs__write_file");
    expect(reviewerNames.some((n) => n.startsWith("memory__"))).toBe(false);
    expect(writerNames).toContain("fs__write_file");
    expect(writerNames).toContain("memory__read_graph");

    const path = `${world.fsRoot}/from-http.txt`;
    const [denied, written] = await Promise.all([
      reviewer.callTool({ name: "fs__write_file", arguments: { path, content: "reviewer" } }),
      writer.callTool({ name: "fs__write_file", arguments: { path, content: "writer" } }),
    ]);
    expect(denied).toEqual({
      content: [{ type: "text", text: "MCP error -32602: Tool fs__write_file not found" }],
      isError: true,
    });
    expect(textOf(written)).toContain("Successfully wrote");
    const read = await reviewer.callTool({ name: "fs__read_text_file", arguments: { path } });
    expect(textOf(read)).toBe("writer");
  });

  it("routes sampling and progress to the client whose call caused them", async () => {
    const sampler = await client(WRITER, { capabilities: { sampling: {} } });
    const other = await client(WRITER, { capabilities: { sampling: {} } });
    let samplerAsked = 0;
    let otherAsked = 0;
    sampler.setRequestHandler(CreateMessageRequestSchema, async () => {
      samplerAsked++;
      return { role: "assistant", model: "m", content: { type: "text", text: "from the sampler" } };
    });
    other.setRequestHandler(CreateMessageRequestSchema, async () => {
      otherAsked++;
      return { role: "assistant", model: "m", content: { type: "text", text: "from the other" } };
    });
    const result = await sampler.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "hello", maxTokens: 5 },
    });
    expect(textOf(result)).toContain("from the sampler");
    expect([samplerAsked, otherAsked]).toEqual([1, 0]);

    const progress: number[] = [];
    const long = await other.callTool(
      { name: "everything__trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(long)).toContain("Long running operation completed");
    expect(progress.slice(0, 2)).toEqual([1, 2]);
  });

  it("serves meta mode over HTTP too", async () => {
    const meta = await serveHttp(world.dir, ["--mode", "meta", "--token", WRITER]);
    try {
      const { client: c } = await httpClient(meta.url, WRITER);
      expect((await c.listTools()).tools.map((t) => t.name)).toContain("mcp_invoke_everything");
      expect(
        await c.callTool({
          name: "mcp_invoke_everything",
          arguments: { tool: "echo", arguments: { message: "m" } },
        }),
      ).toEqual({ content: [{ type: "text", text: "Echo: m" }] });
      await c.close();
    } finally {
      await meta.stop();
    }
  });
});

describe("serve --http: the session layer", () => {
  it("reads sessions/<name>.yaml again for every new MCP session", async () => {
    mkdirSync(`${world.dir}/sessions`, { recursive: true });
    const file = `${world.dir}/sessions/live.yaml`;
    writeFileSync(file, "mcp_tools:\n  memory: [read_graph]\n");
    const live = await serveHttp(world.dir, ["--token", WRITER, "--session", "live"]);
    const memoryTools = async (c: Client): Promise<string[]> =>
      (await c.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("memory__"));
    try {
      const { client: before } = await httpClient(live.url, WRITER);
      expect(await memoryTools(before)).toEqual(["memory__read_graph"]);
      writeFileSync(file, "mcp_tools:\n  memory: [read_graph, search_nodes]\n");
      const { client: after } = await httpClient(live.url, WRITER);
      const both = ["memory__read_graph", "memory__search_nodes"];
      expect((await memoryTools(after)).sort()).toEqual(both);
      // The open session follows once the saved file is reloaded (a watched change: docs/serve.md, "Reload
      // and drain"); when that happens depends on the machine's load, so ask until it has.
      await vi.waitFor(async () => expect((await memoryTools(before)).sort()).toEqual(both), {
        timeout: 30_000,
        interval: 200,
      });
      // A session file broken in the meantime refuses new sessions (fail closed), naming file and line.
      writeFileSync(file, "mcp_tools:\n  memory: [read_graph\n");
      const refused = await rawHttp(live.url, "POST", postHeaders(WRITER), initialize);
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.body).error.message).toMatch(
        /toolgate could not open a session: .*sessions\/live\.yaml:\d+:\d+: error/,
      );
      // ...and its reload is refused, so the open session keeps the map in force.
      await vi.waitFor(() => expect(live.stderr()).toMatch(/E_RELOAD_REFUSED/), {
        timeout: 30_000,
        interval: 200,
      });
      expect((await memoryTools(before)).sort()).toEqual(both);
      await Promise.all([before.close(), after.close()]);
    } finally {
      await live.stop();
    }
  });
});

describe("serve --http: what is refused", () => {
  it("401 without a valid bearer token", async () => {
    for (const headers of [
      postHeaders("wrong-token-0123456789"),
      { "content-type": "application/json", accept: "application/json, text/event-stream" },
      postHeaders(REVIEWER.slice(0, -1)),
    ]) {
      const answer = await raw("POST", headers, initialize);
      expect(answer.status).toBe(401);
      expect(answer.headers["www-authenticate"]).toBe('Bearer realm="toolgate"');
      expect(JSON.parse(answer.body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32001,
          message:
            'Unauthorized: a valid bearer token is required: send the header "Authorization: Bearer <token>" with a token from the --tokens file of toolgate serve (Claude Code: claude mcp add --transport http NAME URL --header "Authorization: Bearer <token>")',
        },
      });
    }
    await expect(httpClient(served.url, "not-a-token-at-all-000")).rejects.toThrow();
  });

  it("answers a client's OAuth discovery with a 404 that says how to authenticate instead", async () => {
    const origin = new URL(served.url).origin;
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/register",
    ]) {
      const answer = await fetch(origin + path, { method: path === "/register" ? "POST" : "GET" });
      expect(answer.status, path).toBe(404);
      const body = (await answer.json()) as { error: string; error_description: string };
      expect(body.error).toBe("invalid_request");
      expect(body.error_description).toContain(
        'this toolgate takes static bearer tokens, not OAuth: send the header "Authorization: Bearer <token>"',
      );
    }
    const other = await fetch(`${origin}/.well-known/other`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toBe(
      "Not Found: the MCP endpoint is /mcp",
    );
  });

  it("403 for an Origin that is not allowed, even with a valid token", async () => {
    const evil = await raw("POST", postHeaders(WRITER, { origin: "https://evil.example" }), initialize);
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.message).toContain("Origin 'https://evil.example' is not allowed");
    const allowed = await raw("POST", postHeaders(WRITER, { origin: "https://app.example" }), initialize);
    expect(allowed.status).toBe(200);
    expect(allowed.headers["mcp-session-id"]).toBeDefined();
  });

  it("403 for a Host that is not the bound address (DNS rebinding)", async () => {
    const port = new URL(served.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      const answer = await raw("POST", postHeaders(WRITER, { host }), initialize);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error.message).toContain("Host");
    }
    const localhost = await raw("POST", postHeaders(WRITER, { host: `localhost:${port}` }), initialize);
    expect(localhost.status).toBe(200);
  });

  it("413 for a body over --max-body-bytes, declared or streamed", async () => {
    const big = Buffer.alloc(70_000, 0x20);
    const declared = await raw("POST", postHeaders(WRITER, { "content-length": String(big.length) }), big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.message).toMatch(/^Payload Too Large/);
    const streamed = await raw("POST", postHeaders(WRITER), undefined, {
      chunks: Array.from({ length: 5 }, () => Buffer.alloc(20_000, 0x20)),
    });
    expect(streamed.status).toBe(413);
    // The server is still fine.
    expect((await raw("POST", postHeaders(WRITER), initialize)).status).toBe(200);
  });

  it("404 for another token's session and for a deleted session; 400 without a session", async () => {
    const opened = await raw("POST", postHeaders(REVIEWER), initialize);
    const session = opened.headers["mcp-session-id"] as string;
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const stolen = await raw("POST", postHeaders(WRITER, { "mcp-session-id": session }), list);
    expect(stolen.status).toBe(404);
    const own = await raw("POST", postHeaders(REVIEWER, { "mcp-session-id": session }), list);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body).result.tools.length).toBeGreaterThan(0);
    expect((await raw("POST", postHeaders(REVIEWER), list)).status).toBe(400);
    const deleted = await raw("DELETE", { authorization: `Bearer ${REVIEWER}`, "mcp-session-id": session });
    expect(deleted.status).toBe(200);
    expect((await raw("POST", postHeaders(REVIEWER, { "mcp-session-id": session }), list)).status).toBe(404);
  });

  it("refuses bad media types, batches, duplicate keys, other paths and methods", async () => {
    expect(
      (await raw("POST", postHeaders(WRITER, { "content-type": "text/plain" }), initialize)).status,
    ).toBe(415);
    expect((await raw("POST", postHeaders(WRITER, { accept: "application/json" }), initialize)).status).toBe(
      406,
    );
    expect((await raw("POST", postHeaders(WRITER), `[${initialize}]`)).status).toBe(400);
    const duplicate = await raw(
      "POST",
      postHeaders(WRITER),
      '{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize"}',
    );
    expect(duplicate.status).toBe(400);
    expect(JSON.parse(duplicate.body).error.message).toContain("E_JSON_DUPLICATE_KEY");
    expect((await raw("POST", postHeaders(WRITER), initialize, { path: "/other" })).status).toBe(404);
    expect((await raw("PUT", postHeaders(WRITER), initialize)).status).toBe(405);
  });
});

describe("serve --http: start-up", () => {
  it("refuses to start without a token, with a short token, or with --token and --tokens", async () => {
    const none = await runCli(["serve", "--config-dir", world.dir, "--http", "0"], {
      env: { TOOLGATE_TOKEN: "" },
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      "serve --http needs a bearer token: --token T, $TOOLGATE_TOKEN, or --tokens FILE",
    );
    const short = await runCli(["serve", "--config-dir", world.dir, "--http", "0", "--token", "short"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("at least 16 characters");
    const both = await runCli([
      "serve",
      "--config-dir",
      world.dir,
      "--http",
      "0",
      "--token",
      WRITER,
      "--tokens",
      `${world.dir}/tokens.yaml`,
    ]);
    expect(both.code).toBe(2);
  });

  it("takes the token from TOOLGATE_TOKEN", async () => {
    const fromEnv = await serveHttp(world.dir, [], { TOOLGATE_TOKEN: WRITER });
    try {
      const { client: c } = await httpClient(fromEnv.url, WRITER);
      expect((await c.listTools()).tools.length).toBeGreaterThan(0);
      await c.close();
    } finally {
      await fromEnv.stop();
    }
  });
});
