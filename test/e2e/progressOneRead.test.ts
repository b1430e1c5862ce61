// A server that writes its last progress notifications and its result in one write (so they arrive in one
// read): serve must pass every progress notification on, in order, before the result, over stdio and HTTP.
// The MCP SDK's client handles notifications a microtask after responses, so a gateway built on it drops
// the progress that arrives with the result; toolgate takes progress off the transport before the SDK.
// Clients here read raw frames, since an SDK client would drop the same notifications on its own side.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";
import { rawHttp, serveHttp, TOKEN, type HttpServe } from "./serveHelpers.js";

const STEPS = 5;
const BURST = `
let buffer = "";
const frame = (m) => JSON.stringify(m) + "\\n";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (m.method === "initialize") {
      process.stdout.write(frame({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "burst", version: "1" } } }));
    } else if (m.method === "tools/list") {
      process.stdout.write(frame({ jsonrpc: "2.0", id: m.id, result: { tools: ["burst", "slow", "silent"].map((name) => ({ name, inputSchema: { type: "object" } })) } }));
    } else if (m.method === "tools/call" && m.params.name === "silent") {
      // never answers
    } else if (m.method === "tools/call" && m.params.name === "slow") {
      const token = m.params._meta && m.params._meta.progressToken;
      let i = 0;
      const tick = setInterval(() => {
        i++;
        if (i <= 4) process.stdout.write(frame({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i } }));
        else { clearInterval(tick); process.stdout.write(frame({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "slow done" }] } })); }
      }, 300);
    } else if (m.method === "tools/call") {
      const token = m.params._meta && m.params._meta.progressToken;
      let out = "";
      for (let i = 1; i <= ${STEPS}; i++) out += frame({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i, total: ${STEPS} } });
      out += frame({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "done" }] } });
      process.stdout.write(out); // all of it in one write
    } else if (m.id !== undefined) {
      process.stdout.write(frame({ jsonrpc: "2.0", id: m.id, result: {} }));
    }
  }
});
`;

const dir = tempDir("tg-burst-");
writeFileSync(join(dir, "burst.cjs"), BURST);
const config = configDir({
  "mcp.json": mcpJson({ b: { command: NODE, args: [join(dir, "burst.cjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
});
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const call = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "b__burst", arguments: {}, _meta: { progressToken: "client-token" } },
};

type Frame = {
  id?: number;
  method?: string;
  params?: { progressToken?: unknown; progress?: number };
  error?: { code: number; message: string };
};
const expectAllProgressFirst = (frames: Frame[]) => {
  const until = frames.findIndex((f) => f.id === 7);
  expect(until).toBeGreaterThan(0);
  const progress = frames.slice(0, until).filter((f) => f.method === "notifications/progress");
  expect(progress.map((f) => [f.params?.progressToken, f.params?.progress])).toEqual(
    Array.from({ length: STEPS }, (_, i) => ["client-token", i + 1]),
  );
  expect(frames.slice(until + 1).filter((f) => f.method === "notifications/progress")).toEqual([]);
};

/** serve --stdio with `flags`, driven by raw frames: initialize, then `request`; every frame up to its answer. */
async function overStdio(flags: string[], request: object): Promise<Frame[]> {
  const serve = spawn(NODE, [CLI, "serve", "--config-dir", config, ...flags], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const frames: Frame[] = [];
  let buffer = "";
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer: ${JSON.stringify(frames)}`)), 15_000);
    serve.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const f = JSON.parse(buffer.slice(0, nl)) as Frame;
        buffer = buffer.slice(nl + 1);
        frames.push(f);
        if (f.id === 1) {
          serve.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
          serve.stdin.write(JSON.stringify(request) + "\n");
        }
        if (f.id === 7) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
  });
  serve.stdin.write(JSON.stringify(initialize) + "\n");
  try {
    await done;
  } finally {
    serve.kill("SIGTERM");
  }
  return frames;
}

const running: HttpServe[] = [];
afterAll(async () => {
  for (const s of running) await s.stop();
});

describe("serve: progress that arrives in one read with the result", () => {
  it("over stdio, every progress notification reaches the client before the result", async () => {
    expectAllProgressFirst(await overStdio([], call));
  });

  it("--request-timeout is reset by each progress, and ends a call the server never answers", async () => {
    const slow = { ...call, params: { ...call.params, name: "b__slow" } };
    const frames = await overStdio(["--request-timeout", "700"], slow);
    expect(frames.filter((f) => f.method === "notifications/progress")).toHaveLength(4);
    expect(JSON.stringify(frames.at(-1))).toContain("slow done");
    const started = Date.now();
    const silent = { ...call, params: { name: "b__silent", arguments: {} } };
    const timedOut = await overStdio(["--request-timeout", "500"], silent);
    // The answer is the timeout's (the server never answers); the bound only says the call did not hang
    // (start-up of serve and its servers included, on a loaded machine).
    expect(timedOut.at(-1)).toMatchObject({ id: 7, error: { code: -32001, message: "Request timed out" } });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("over HTTP, every progress notification is an event before the result on the call's stream", async () => {
    const s = await serveHttp(config, ["--token", TOKEN]);
    running.push(s);
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const opened = await rawHttp(s.url, "POST", headers, JSON.stringify(initialize));
    const session = { ...headers, "mcp-session-id": opened.headers["mcp-session-id"] as string };
    await rawHttp(
      s.url,
      "POST",
      session,
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    const answer = await rawHttp(s.url, "POST", session, JSON.stringify(call));
    expect(answer.headers["content-type"]).toBe("text/event-stream");
    const frames = answer.body
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)) as Frame);
    expectAllProgressFirst(frames);
  });
});
