// What the client sends is what the server gets, and the reverse: every number kept exactly as written
// (2^53 + 1, 2^63 + 1, 10^23, 1e400, -0, 1.0, a decimal past a double's digits) through wrap and serve, in
// both protocol eras, over stdio and Streamable HTTP, direct and through meta invoke, to a stdio server and
// to an HTTP one. The servers are small scripts written here that record every byte they receive and answer
// with literals of their own; the clients are raw (a line or a body), so nothing on either end parses them
// into doubles. Then the same as a property, with random literals, byte-compared at the recorder.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";
import { serveHttp, type HttpServe } from "./serveHelpers.js";

const MODERN = "2026-07-28";
const TOKEN = "numbers-token-0123456789abcdef";
/** The arguments as the client writes them: each literal one a double would change. */
const ARGS =
  '{"a":9007199254740993,"b":9223372036854775809,"c":100000000000000000000000,"d":1e400,"e":-0,"f":1.0,"g":0.10000000000000000000000001,"h":[1E2,{"i":-12345678901234567890123}]}';
/** What the servers answer with, inside structuredContent. */
const ANSWER = '{"id":9007199254740993,"big":1e400,"neg":-0,"one":1.0}';

/** A JSON number literal: long integers, many decimals, exponents, signs, -0. */
const literal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,30}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,30}$/), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.stringMatching(/^[0-9]{1,3}$/)),
      {
        nil: undefined,
      },
    ),
  )
  .map(
    ([neg, int, frac, exp]) =>
      `${neg ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}${exp === undefined ? "" : exp.join("")}`,
  );

const dir = tempDir("tg-numbers-");
const record = join(dir, "received.jsonl");
writeFileSync(record, "");

/** A stdio server of both eras that records every line and answers tools/call with ANSWER's literals. */
const STDIO_SERVER = join(dir, "numbers.mjs");
writeFileSync(
  STDIO_SERVER,
  String.raw`
import { appendFileSync } from "node:fs";
const RECORD = ${JSON.stringify(record)};
const ANSWER = ${JSON.stringify(ANSWER)};
let buffer = "";
const out = (text) => process.stdout.write(text + "\n");
process.stdin.on("data", (d) => {
  buffer += d;
  for (let i; (i = buffer.indexOf("\n")) >= 0; ) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line.trim() === "") continue;
    appendFileSync(RECORD, line + "\n");
    handle(line, JSON.parse(line));
  }
});
function handle(line, m) {
  if (m.id === undefined) return;
  const modern = m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] !== undefined;
  const done = modern ? '"resultType":"complete",' : "";
  const id = JSON.stringify(m.id);
  const tools = '[{"name":"echo","inputSchema":{"type":"object"}}]';
  switch (m.method) {
    case "server/discover":
      return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"serverInfo":{"name":"numbers","version":"1"}}}');
    case "initialize":
      return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"protocolVersion":' + JSON.stringify(m.params.protocolVersion) + ',"capabilities":{"tools":{}},"serverInfo":{"name":"numbers","version":"1"}}}');
    case "tools/list":
      return out('{"jsonrpc":"2.0","id":' + id + ',"result":{' + done + (modern ? '"ttlMs":0,"cacheScope":"public",' : "") + '"tools":' + tools + '}}');
    case "tools/call":
      return out('{"jsonrpc":"2.0","id":' + id + ',"result":{' + done + '"content":[{"type":"text","text":"ok"}],"structuredContent":' + ANSWER + '}}');
    default:
      return out('{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32601,"message":"Method not found"}}');
  }
}
`,
);

const received = (): string => readFileSync(record, "utf8");
const envelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{}}`;
const call = (id: number, name: string, args: string, modern: boolean) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}${modern ? `,${envelope}` : ""}}}`;

/** A raw line client over a child's stdio: send a line, wait for the line answering an id. */
class LineClient {
  private buffer = "";
  private readonly waiting = new Map<number, (line: string) => void>();
  private stderr = "";
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      this.buffer += d;
      for (let i; (i = this.buffer.indexOf("\n")) >= 0;) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        const id = /"id":(\d+)/.exec(line)?.[1];
        if (id !== undefined && !line.includes('"method"')) this.waiting.get(Number(id))?.(line);
      }
    });
    child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString("utf8")));
  }
  static start(args: string[]): LineClient {
    return new LineClient(spawn(NODE, [CLI, ...args], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] }));
  }
  send(line: string): void {
    this.child.stdin.write(line + "\n");
  }
  request(id: number, line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${id}:\n${this.stderr}`)), 30_000);
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.send(line);
    });
  }
  close(): void {
    this.child.kill("SIGTERM");
  }
}

const initialize = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`;

/** Opens a legacy session on a line client. */
async function legacy(client: LineClient): Promise<LineClient> {
  await client.request(1, initialize(1));
  client.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return client;
}

/** The surfaces, each: how to call `echo` with `args` and get the answering text back. */
interface Surface {
  call(id: number, args: string): Promise<string>;
  close(): void | Promise<void>;
}

const cfg = (servers: Record<string, unknown>) =>
  configDir({ "mcp.json": mcpJson(servers), "config.yaml": "enabled_mcp_servers: all\n" });

let httpUpstream: Server;
let httpUpstreamUrl = "";
const surfaces = new Map<string, Surface>();

beforeAll(async () => {
  // An HTTP MCP server (Streamable HTTP, JSON answers) that records every body it receives.
  httpUpstream = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      writeFileSync(record, body + "\n", { flag: "a" });
      const m = JSON.parse(body) as {
        id?: number | string;
        method: string;
        params?: { protocolVersion?: string };
      };
      if (m.id === undefined) return void res.writeHead(202).end();
      const id = JSON.stringify(m.id);
      const result =
        m.method === "initialize"
          ? `{"protocolVersion":${JSON.stringify(m.params?.protocolVersion)},"capabilities":{"tools":{}},"serverInfo":{"name":"numbers-http","version":"1"}}`
          : m.method === "tools/list"
            ? '{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}'
            : m.method === "tools/call"
              ? `{"content":[{"type":"text","text":"ok"}],"structuredContent":${ANSWER}}`
              : null;
      const answer =
        result === null
          ? `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`
          : `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-numbers" }).end(answer);
    });
  });
  await new Promise<void>((r) => httpUpstream.listen(0, "127.0.0.1", r));
  httpUpstreamUrl = `http://127.0.0.1:${(httpUpstream.address() as AddressInfo).port}/mcp`;

  const stdioDir = cfg({ num: { command: NODE, args: [STDIO_SERVER] } });
  const httpDir = cfg({ num: { type: "http", url: httpUpstreamUrl } });

  const wrapLegacy = await legacy(LineClient.start(["wrap", "--", NODE, STDIO_SERVER]));
  surfaces.set("wrap (2025-11-25)", {
    call: (id, args) => wrapLegacy.request(id, call(id, "echo", args, false)),
    close: () => wrapLegacy.close(),
  });
  const wrapModern = LineClient.start(["wrap", "--", NODE, STDIO_SERVER]);
  surfaces.set("wrap (2026-07-28)", {
    call: (id, args) => wrapModern.request(id, call(id, "echo", args, true)),
    close: () => wrapModern.close(),
  });
  for (const [name, target] of [
    ["serve stdio → stdio server", stdioDir],
    ["serve stdio → HTTP server", httpDir],
  ] as const) {
    const direct = await legacy(LineClient.start(["serve", "--config-dir", target]));
    surfaces.set(`${name} (direct, 2025-11-25)`, {
      call: (id, args) => direct.request(id, call(id, "num__echo", args, false)),
      close: () => direct.close(),
    });
    const modern = LineClient.start(["serve", "--config-dir", target]);
    surfaces.set(`${name} (direct, 2026-07-28)`, {
      call: (id, args) => modern.request(id, call(id, "num__echo", args, true)),
      close: () => modern.close(),
    });
    const meta = await legacy(LineClient.start(["serve", "--mode", "meta", "--config-dir", target]));
    surfaces.set(`${name} (meta invoke)`, {
      call: (id, args) =>
        meta.request(id, call(id, "mcp_invoke_num", `{"tool":"echo","arguments":${args}}`, false)),
      close: () => meta.close(),
    });
  }
  const served: HttpServe = await serveHttp(stdioDir, ["--token", TOKEN]);
  const post = async (
    body: string,
    extra: Record<string, string>,
  ): Promise<{ text: string; session: string | null }> => {
    const answer = await fetch(served.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...extra,
      },
      body,
    });
    return { text: await answer.text(), session: answer.headers.get("mcp-session-id") };
  };
  const opened = await post(initialize(1), {});
  const session = opened.session!;
  await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', { "mcp-session-id": session });
  surfaces.set("serve HTTP (2025-11-25)", {
    call: async (id, args) =>
      (await post(call(id, "num__echo", args, false), { "mcp-session-id": session })).text,
    close: () => {},
  });
  surfaces.set("serve HTTP (2026-07-28)", {
    call: async (id, args) =>
      (
        await post(call(id, "num__echo", args, true), {
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "num__echo",
        })
      ).text,
    close: () => served.stop(),
  });
}, 180_000);

afterAll(async () => {
  for (const s of surfaces.values()) await s.close();
  await new Promise<void>((r) => httpUpstream?.close(() => r()));
});

let nextId = 100;

describe.each([
  "wrap (2025-11-25)",
  "wrap (2026-07-28)",
  "serve stdio → stdio server (direct, 2025-11-25)",
  "serve stdio → stdio server (direct, 2026-07-28)",
  "serve stdio → stdio server (meta invoke)",
  "serve stdio → HTTP server (direct, 2025-11-25)",
  "serve stdio → HTTP server (direct, 2026-07-28)",
  "serve stdio → HTTP server (meta invoke)",
  "serve HTTP (2025-11-25)",
  "serve HTTP (2026-07-28)",
])("%s", (name) => {
  it("the server receives every number as the client wrote it, and the client every number as the server wrote it", async () => {
    const surface = surfaces.get(name)!;
    const before = received().length;
    const answer = await surface.call(nextId++, ARGS);
    const got = received().slice(before);
    expect(got).toContain(`"arguments":${ARGS}`);
    expect(answer).toContain(ANSWER);
  });

  it("random literals of every shape arrive byte for byte (property)", async () => {
    const surface = surfaces.get(name)!;
    await fc.assert(
      fc.asyncProperty(fc.array(literal, { minLength: 1, maxLength: 5 }), async (lits) => {
        const args = `{"n":[${lits.join(",")}]}`;
        const before = received().length;
        await surface.call(nextId++, args);
        expect(received().slice(before)).toContain(`"arguments":${args}`);
      }),
      { numRuns: 15 },
    );
  });
});
