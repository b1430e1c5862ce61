// serve --http in revision 2026-07-28: mirrored headers the body does not back are refused as
// HeaderMismatch (-32020) before anything is decided or forwarded: an `Mcp-Param-*` header whose argument is
// absent or null, and any mirrored header sent on more than one line (which node would otherwise join into
// one "a, b" value). The v2 SDK client, which mirrors only what the body carries, passes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { rawHttp, serveHttp, TOKEN, textOf, type HttpServe } from "./serveHelpers.js";

const MODERN = "2026-07-28";
const dir = tempDir("tg-header-lines-");
const calls = join(dir, "calls.jsonl");
const auditLog = join(dir, "audit.jsonl");
const config = configDir({
  "mcp.json": mcpJson({
    m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")], env: { MODERN_CALLS: calls } },
  }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml": `version: "2.0"\nenforcement: { unconstrained_tools: allow }\n`,
});
const called = (name: string) =>
  readFileSync(calls, { encoding: "utf8", flag: "a+" })
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> })
    .filter((c) => c.name === name);

const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const headers = (name: string, extra: Record<string, string | string[]> = {}) => ({
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": name,
  ...extra,
});
const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, _meta: envelope },
  });

let served: HttpServe;
beforeAll(async () => {
  served = await serveHttp(config, [
    "--token",
    TOKEN,
    "--policy",
    join(config, "policy.yaml"),
    "--audit-log",
    auditLog,
  ]);
});
afterAll(async () => {
  await served?.stop();
});

async function refused(h: Record<string, string | string[]>, body: string, id: number): Promise<string> {
  const answer = await rawHttp(served.url, "POST", h, body);
  expect(answer.status, answer.body).toBe(400);
  const parsed = JSON.parse(answer.body) as { id: unknown; error: { code: number; message: string } };
  expect(parsed.error.code).toBe(-32020);
  expect(parsed.id).toBe(id);
  return parsed.error.message;
}

describe("serve --http, 2026-07-28: headers the body does not back", () => {
  it("the v2 SDK client's call, which mirrors its argument, passes", async () => {
    const client = new ModernClient(
      { name: "header-lines-e2e", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const result = await client.callTool({
      name: "m__region_echo",
      arguments: { region: "eu", text: "sdk" },
    });
    expect(textOf(result)).toBe("eu: sdk");
    await client.close();
  });

  it("refuses a declared Mcp-Param-* header whose argument is absent or null; never forwards it", async () => {
    const absent = await refused(
      headers("m__region_echo", { "mcp-param-region": "eu" }),
      call(11, "m__region_echo", { text: "absent" }),
      11,
    );
    expect(absent).toContain("Mcp-Param-Region");
    expect(absent).toContain("absent or null");
    await refused(
      headers("m__region_echo", { "mcp-param-region": "eu" }),
      call(12, "m__region_echo", { region: null, text: "null" }),
      12,
    );
    // Without the header the same absent argument is the server's to judge (its schema wants a region).
    const unrefused = await rawHttp(
      served.url,
      "POST",
      headers("m__region_echo"),
      call(13, "m__region_echo", { text: "absent, no header" }),
    );
    expect(JSON.parse(unrefused.body).error?.code).not.toBe(-32020);
    expect(called("region_echo").map((c) => c.args.text)).not.toEqual(
      expect.arrayContaining(["absent", "null"]),
    );
  });

  it.each([
    ["Mcp-Name", { "mcp-name": ["m__echo", "m__echo"] }],
    ["Mcp-Method", { "mcp-method": ["tools/call", "tools/call"] }],
    ["MCP-Protocol-Version", { "mcp-protocol-version": [MODERN, MODERN] }],
    ["Mcp-Param-Region", { "mcp-param-region": ["eu", "us"] }],
    ["Mcp-Param-Undeclared", { "mcp-param-undeclared": ["a", "b"] }],
  ])("refuses %s sent on two lines", async (name, extra) => {
    const id = 20 + name.length;
    const message = await refused(
      headers("m__echo", extra),
      call(id, "m__echo", { message: `twice ${name}` }),
      id,
    );
    expect(message).toContain(`the ${name} header`);
    expect(message).toContain("more than one line");
    expect(called("echo").map((c) => c.args.message)).not.toContain(`twice ${name}`);
  });

  it("a repeated Mcp-Param-* line of a declared argument is refused even when both lines agree", async () => {
    await refused(
      headers("m__region_echo", { "mcp-param-region": ["eu", "eu"] }),
      call(31, "m__region_echo", { region: "eu", text: "agreeing lines" }),
      31,
    );
    expect(called("region_echo").map((c) => c.args.text)).not.toContain("agreeing lines");
  });

  it("one line holding a comma is one value, not a repeat", async () => {
    const answer = await rawHttp(
      served.url,
      "POST",
      headers("m__region_echo", { "mcp-param-region": "eu, us" }),
      call(32, "m__region_echo", { region: "eu, us", text: "comma" }),
    );
    expect(answer.status, answer.body).toBe(200);
    expect(called("region_echo").map((c) => c.args.region)).toContain("eu, us");
  });

  it("each refusal is in the audit log, with the reason the client was given", () => {
    const reasons = readAudit(auditLog)
      .filter((e) => e.code === "E_PROTOCOL")
      .map((e) => String(e.reason));
    expect(reasons.filter((r) => r.includes("more than one line")).length).toBeGreaterThanOrEqual(6);
    expect(reasons.filter((r) => r.includes("absent or null"))).toHaveLength(2);
  });

  it("a 2025-era request with MCP-Protocol-Version on two lines is refused as unsupported", async () => {
    const answer = await rawHttp(
      served.url,
      "POST",
      {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": ["2025-11-25", "2025-11-25"],
      },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 40,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 40, error: { code: -32022 } });
  });
});
