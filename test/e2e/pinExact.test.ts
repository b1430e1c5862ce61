// toolgate pin reads tools/list as the server wrote it, so a schema holding integers beyond 2^53 gets an
// exact_schema_hash (the spec's blind spot), over stdio, Streamable HTTP (JSON and event-stream answers)
// and the legacy HTTP+SSE transport, across pages.
import { execFile, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { loadPolicyFile } from "../../src/config/policyLoader.js";
import { checkPins } from "../../src/engine/pins/drift.js";
import { exactSchemaHash } from "../../src/engine/pins/exactHash.js";
import { metaHash, schemaHash } from "../../src/engine/pins/hashes.js";
import { answerText, bigSchema } from "./fixtures/bigintAnswers.mjs";
import { CLI, connect, FIXTURES, NODE, ROOT, tempDir, wrapCommand, writePolicy } from "./helpers.js";

const BIG = "9007199254740993"; // 2^53 + 1: the double it parses to is 2^53
const NEIGHBOUR = "9007199254740992";

const dir = tempDir("tg-pin-exact-");
const fixture = join(FIXTURES, "bigintServer.mjs");

function toolgate(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(NODE, [CLI, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function toolgateAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(NODE, [CLI, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}

type PinBlock = Record<string, Record<string, string>>;

function expectExactPins(yamlText: string, n: string, serverId: string): PinBlock {
  const block = (parseYaml(yamlText) as { tool_pins: PinBlock }).tool_pins;
  expect(Object.keys(block)).toEqual(["1.0", "a: b", "bounded", "plain", "yes"]);
  expect(block.bounded).toEqual({
    server_id: serverId,
    tool_name: "bounded",
    schema_hash: schemaHash(JSON.parse(bigSchema(n))),
    meta_hash: metaHash("a bound beyond 2^53"),
    exact_schema_hash: exactSchemaHash(bigSchema(n)),
  });
  // No integer beyond 2^53: no exact hash, and 1e2 is hashed as 100.
  expect(block.plain).toEqual({
    server_id: serverId,
    tool_name: "plain",
    schema_hash: schemaHash({ type: "object", properties: { q: { type: "string", maxLength: 100 } } }),
    meta_hash: metaHash("no big numbers"),
  });
  expect(block.yes!.tool_name).toBe("yes");
  expect(block["1.0"]!.meta_hash).toBe(metaHash(""));
  return block;
}

describe("over stdio", () => {
  it("pins every page; exact_schema_hash only where a schema holds an integer beyond 2^53", () => {
    const run = toolgate(["pin", "--", NODE, fixture, BIG]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expectExactPins(run.stdout, BIG, "bigint-fixture");
  });

  it("closes the blind spot: 2^53+1 → 2^53 keeps schema_hash, changes exact_schema_hash, and the pin sees it", () => {
    const before = expectExactPins(toolgate(["pin", "--", NODE, fixture, BIG]).stdout, BIG, "bigint-fixture");
    const after = expectExactPins(
      toolgate(["pin", "--", NODE, fixture, NEIGHBOUR]).stdout,
      NEIGHBOUR,
      "bigint-fixture",
    );
    expect(after.bounded!.schema_hash).toBe(before.bounded!.schema_hash);
    expect(after.bounded!.exact_schema_hash).not.toBe(before.bounded!.exact_schema_hash);

    const policyText = `version: "2.0"\nname: exact\n\n${toolgate(["pin", "--", NODE, fixture, BIG]).stdout}`;
    const path = writePolicy(dir, policyText, "exact.yaml");
    const validated = toolgate(["policy", "validate", "--input", path]);
    expect(validated.status).toBe(0);
    const pins = loadPolicyFile(path).policy!.toolPins;
    const tool = {
      name: "bounded",
      description: "a bound beyond 2^53",
      inputSchema: JSON.parse(bigSchema(NEIGHBOUR)),
    };
    const options = { serverId: "bigint-fixture", unpinned: "deny" as const };
    expect(checkPins(pins, tool, { ...options, exactSchemaText: bigSchema(BIG) }).ok).toBe(true);
    expect(checkPins(pins, tool, { ...options, exactSchemaText: bigSchema(NEIGHBOUR) })).toMatchObject({
      ok: false,
      code: "E_TOOL_DRIFT",
    });
  });
});

describe("the printed exact pins in wrap", () => {
  it("the pinned server's tools are shown; the same server with 2^53 instead of 2^53+1 has 'bounded' withheld", async () => {
    const block = toolgate(["pin", "--", NODE, fixture, BIG]).stdout;
    const policy = writePolicy(
      dir,
      `version: "2.0"\nname: exact-wrap\nenforcement:\n  unpinned_tools: deny\n\n${block}`,
      "exact-wrap.yaml",
    );
    const shown = async (n: string): Promise<string[]> => {
      const wrapped = await connect(wrapCommand(["--policy", policy], [NODE, fixture, n]));
      try {
        const names: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await wrapped.client.listTools(cursor === undefined ? {} : { cursor });
          names.push(...page.tools.map((t) => t.name));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        return names.sort();
      } finally {
        await wrapped.close();
      }
    };
    expect(await shown(BIG)).toEqual(["1.0", "a: b", "bounded", "plain", "yes"]);
    expect(await shown(NEIGHBOUR)).toEqual(["1.0", "a: b", "plain", "yes"]);
  });
});

/** A bare-bones MCP server over node:http on 127.0.0.1 answering with the raw texts above. */
async function httpFixture(
  mode: "json" | "event-stream" | "legacy-sse",
): Promise<{ url: string; server: Server }> {
  let stream: ServerResponse | null = null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (mode === "legacy-sse" && req.method === "GET" && url.pathname === "/sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write("event: endpoint\ndata: /messages\n\n");
      stream = res;
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      const text = answerText(JSON.parse(body), BIG);
      if (mode === "legacy-sse") {
        res.writeHead(202).end("Accepted");
        // Split across writes, with CRLF line ends and a comment: the reader must reassemble the event.
        if (text !== null && stream !== null) {
          const half = Math.floor(text.length / 2);
          stream.write(`: keep-alive\r\nevent: message\r\ndata: ${text.slice(0, half)}`);
          setTimeout(() => stream!.write(`${text.slice(half)}\r\n\r\n`), 5);
        }
        return;
      }
      if (text === null) {
        res.writeHead(202).end();
      } else if (mode === "json") {
        res.writeHead(200, { "content-type": "application/json" }).end(text);
      } else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`event: message\nid: 1\ndata: ${text}\n\n`);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/${mode === "legacy-sse" ? "sse" : "mcp"}`, server };
}

describe("over HTTP (mcp.json http and sse servers)", () => {
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((r) => (server === null ? r() : server.close(() => r())));
    server = null;
  });

  for (const mode of ["json", "event-stream", "legacy-sse"] as const) {
    it(`Streamable HTTP / SSE, ${mode} answers: the same exact pins`, async () => {
      const fixture = await httpFixture(mode);
      server = fixture.server;
      const config = tempDir("tg-pin-http-");
      const type = mode === "legacy-sse" ? "sse" : "http";
      writeFileSync(
        join(config, "mcp.json"),
        JSON.stringify({ mcpServers: { remote: { type, url: fixture.url } } }),
      );
      // Asynchronous: the fixture answers from this process.
      const run = await toolgateAsync(["pin", "--config-dir", config, "--server", "remote"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expectExactPins(run.stdout, BIG, "remote");
    });
  }
});
