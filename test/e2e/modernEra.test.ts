// serve in revision 2026-07-28 against a server of that revision (the v2 SDK's serveStdio, written in
// fixtures/modernServer.mjs) and a legacy one (server-everything): the v2 client pinned to the revision
// and in auto mode, the v1 client on the same gateway, and raw HTTP for what no SDK client would send
// (altered or replayed states, headers that disagree with the body, a modern request on a legacy session).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, EVERYTHING_SERVER, FIXTURES, NODE, readAudit, ROOT, tempDir } from "./helpers.js";
import { rawHttp, serveHttp, TOKEN, type HttpServe } from "./serveHelpers.js";

const MODERN = "2026-07-28";
const dir = tempDir("tg-modern-");
const calls = join(dir, "calls.jsonl");
const auditLog = join(dir, "audit.jsonl");
const config = configDir({
  "mcp.json": mcpJson({
    m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")], env: { MODERN_CALLS: calls } },
    ev: { command: NODE, args: [EVERYTHING_SERVER] },
  }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml": `version: "2.0"
tools:
  deny: ["write_note"]
  approval_required: ["deploy"]
schemas:
  echo:
    type: object
    properties: { message: { type: string, maxLength: 10 } }
enforcement: { unconstrained_tools: allow }
`,
});
const serveArgs = ["--config-dir", config, "--policy", join(config, "policy.yaml"), "--audit-log", auditLog];
const called = (name: string) =>
  readFileSync(calls, { encoding: "utf8", flag: "a+" })
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> })
    .filter((c) => c.name === name);

/** The v2 SDK's stdio transport, probing in place (its own class would start the command twice). */
class InPlaceStdio extends StdioClientTransport {}

type Answer = () => { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

function modernClient(mode: "pin" | "auto", answer: Answer): ModernClient {
  const client = new ModernClient(
    { name: "modern-e2e", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: mode === "pin" ? { pin: MODERN } : "auto" },
    },
  );
  client.setRequestHandler("elicitation/create", async () => answer() as never);
  return client;
}

const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const c of open.reverse()) await c.close().catch(() => {});
});

const text = (r: unknown) =>
  ((r as { content: Array<{ text?: string }> }).content ?? []).map((c) => c.text).join("");

describe.each(["stdio", "http"] as const)("serve over %s, client pinned to 2026-07-28", (transport) => {
  let client: ModernClient;
  let answer: Answer = () => ({ action: "accept", content: { approve: true, yes: true } });
  beforeAll(async () => {
    client = modernClient("pin", () => answer());
    if (transport === "stdio") {
      await client.connect(
        new InPlaceStdio({ command: NODE, args: [CLI, "serve", ...serveArgs], cwd: ROOT }),
      );
    } else {
      const served = await serveHttp(config, ["--token", TOKEN, ...serveArgs.slice(2)]);
      open.push({ close: served.stop });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
        }),
      );
    }
    open.push(client);
  });

  it("negotiates the revision with toolgate itself", () => {
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerVersion()).toMatchObject({ name: "toolgate" });
  });

  it("lists the filtered tools as private to the caller, of both servers", async () => {
    const list = (await client.request({ method: "tools/list", params: {} })) as Record<string, unknown>;
    const names = (list.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["m__echo", "m__deploy", "m__confirm", "ev__echo"]));
    expect(names).not.toContain("m__write_note");
    expect(list).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("forwards an allowed call; a hidden one gets exactly a missing tool's answer and never arrives", async () => {
    expect(text(await client.callTool({ name: "m__echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
    const missing = await client.callTool({ name: "m__nope", arguments: {} }).catch((e: Error) => e.message);
    const hidden = await client
      .callTool({ name: "m__write_note", arguments: { path: "p", content: "c" } })
      .catch((e: Error) => e.message);
    expect(missing).toBe("Tool m__nope not found");
    expect(hidden).toBe("Tool m__write_note not found");
    expect(called("write_note")).toEqual([]);
  });

  it("answers a schema deny as a valid result of the revision", async () => {
    const denied = await client.request({
      method: "tools/call",
      params: { name: "m__echo", arguments: { message: "far too long a message" } },
    });
    expect(denied).toMatchObject({ isError: true });
    expect(text(denied)).toMatch(/^Blocked by policy: E_ARG_SCHEMA /);
  });

  it("asks for approval with input_required: accepted runs the call, declined does not", async () => {
    answer = () => ({ action: "accept", content: { approve: true } });
    expect(text(await client.callTool({ name: "m__deploy", arguments: { target: `ok-${transport}` } }))).toBe(
      `deployed ok-${transport}`,
    );
    answer = () => ({ action: "decline" });
    const declined = await client.callTool({ name: "m__deploy", arguments: { target: `no-${transport}` } });
    expect(text(declined)).toMatch(/^Blocked by policy: E_APPROVAL_REQUIRED .*the person declined/);
    expect(called("deploy").map((c) => c.args.target)).toEqual(expect.arrayContaining([`ok-${transport}`]));
    expect(called("deploy").map((c) => c.args.target)).not.toContain(`no-${transport}`);
  });

  it("passes a server's own input_required on to the client and its retry back", async () => {
    answer = () => ({ action: "accept", content: { yes: true } });
    expect(text(await client.callTool({ name: "m__confirm", arguments: {} }))).toBe("confirmed yes");
  });

  it("reaches a legacy server for the modern client", async () => {
    expect(text(await client.callTool({ name: "ev__echo", arguments: { message: "old" } }))).toBe(
      "Echo: old",
    );
  });
});

describe("serve over HTTP: what only a hostile client sends", () => {
  let served: HttpServe;
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  };
  const headers = (method: string, name?: string, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
    ...extra,
  });
  const call = (id: number, params: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { ...params, _meta: envelope } });
  beforeAll(async () => {
    served = await serveHttp(config, ["--token", TOKEN, ...serveArgs.slice(2)]);
    open.push({ close: served.stop });
  });

  it("refuses headers that disagree with the body (-32020) before deciding or forwarding", async () => {
    const body = call(1, { name: "m__echo", arguments: { message: "x" } });
    for (const h of [
      headers("tools/call", "m__write_note"),
      headers("tools/list", "m__echo"),
      headers("tools/call", undefined),
      headers("tools/call", "m__echo", { "mcp-protocol-version": "2025-11-25" }),
    ]) {
      const answer = await rawHttp(served.url, "POST", h, body);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.code).toBe(-32020);
    }
    const region = call(2, { name: "m__region_echo", arguments: { region: "eu", text: "t" } });
    const wrongRegion = await rawHttp(
      served.url,
      "POST",
      headers("tools/call", "m__region_echo", { "mcp-param-region": "us" }),
      region,
    );
    expect(wrongRegion.status).toBe(400);
    expect(JSON.parse(wrongRegion.body).error.message).toContain("Mcp-Param-Region");
    const right = await rawHttp(
      served.url,
      "POST",
      headers("tools/call", "m__region_echo", { "mcp-param-region": "eu" }),
      region,
    );
    expect(right.status).toBe(200);
    expect(called("region_echo").map((c) => c.args.region)).toEqual(["eu"]);
    // Each refusal is in the audit log, with the reason the client was given.
    const refusals = readAudit(auditLog).filter((e) => e.code === "E_PROTOCOL");
    expect(refusals.length).toBeGreaterThanOrEqual(5);
    expect(refusals.map((e) => e.reason)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("Mcp-Name header disagrees"),
        expect.stringContaining("Mcp-Method header disagrees"),
        expect.stringContaining("Mcp-Param-Region header disagrees"),
      ]),
    );
    expect(refusals[0]).toMatchObject({ event: "request", decision: "deny", client: "token" });
  });

  it("refuses an unsupported version (-32022) and a missing envelope (-32602), naming what it speaks", async () => {
    const old = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "1900-01-01" } },
    });
    const answer = await rawHttp(
      served.url,
      "POST",
      headers("tools/list", undefined, { "mcp-protocol-version": "1900-01-01" }),
      old,
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining([MODERN, "2025-11-25"]), requested: "1900-01-01" },
    });
    const bare = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: {} });
    const missing = await rawHttp(served.url, "POST", headers("tools/list"), bare);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).error.code).toBe(-32602);
  });

  it("refuses a modern request on a legacy session", async () => {
    const init = await rawHttp(
      served.url,
      "POST",
      {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    const session = init.headers["mcp-session-id"] as string;
    const answer = await rawHttp(
      served.url,
      "POST",
      headers("tools/list", undefined, { "mcp-session-id": session }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: envelope } }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.message).toContain("belongs to no session");
  });

  it("approves only with toolgate's own state, unaltered, for this call, once; refusals are recorded", async () => {
    const first = await rawHttp(
      served.url,
      "POST",
      headers("tools/call", "m__deploy"),
      call(10, { name: "m__deploy", arguments: { target: "raw" } }),
    );
    const question = JSON.parse(first.body).result;
    expect(question).toMatchObject({
      resultType: "input_required",
      inputRequests: { toolgate_approval: { method: "elicitation/create" } },
    });
    const state: string = question.requestState;
    const approve = { toolgate_approval: { action: "accept", content: { approve: true } } };
    const retry = (id: number, s: string, args = { target: "raw" }) =>
      rawHttp(
        served.url,
        "POST",
        headers("tools/call", "m__deploy"),
        call(id, { name: "m__deploy", arguments: args, inputResponses: approve, requestState: s }),
      );
    const [head, body, mac] = state.split(".");
    const altered = `${head}.${body}x.${mac}`;
    for (const [id, s, args] of [
      [11, altered, undefined],
      [12, state, { target: "elsewhere" }],
    ] as const) {
      const refused = await retry(id, s, args);
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error).toMatchObject({
        code: -32602,
        data: { reason: "invalid_request_state" },
      });
    }
    const ok = await retry(13, state);
    expect(JSON.parse(ok.body).result.content[0].text).toBe("deployed raw");
    const replay = await retry(14, state);
    expect(JSON.parse(replay.body).error.message).toMatch(/Invalid requestState: it was used before/);
    expect(called("deploy").filter((c) => c.args.target === "raw")).toHaveLength(1);
    const refusals = readAudit(auditLog).filter((e) => e.code === "E_REQUEST_STATE");
    expect(refusals.map((e) => e.reason)).toEqual([
      expect.stringContaining("signature does not match"),
      expect.stringContaining("issued for other arguments"),
      expect.stringContaining("used before"),
    ]);
  });

  it("opens subscriptions/listen: acknowledged with what it honors, then open until the client leaves", async () => {
    const listen = JSON.stringify({
      jsonrpc: "2.0",
      id: "L1",
      method: "subscriptions/listen",
      params: { _meta: envelope, notifications: { toolsListChanged: true, resourceSubscriptions: ["x"] } },
    });
    const url = new URL(served.url);
    const { request } = await import("node:http");
    const first = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: headers("subscriptions/listen"),
          agent: false,
        },
        (res) => {
          expect(res.headers["content-type"]).toBe("text/event-stream");
          res.once("data", (d: Buffer) => {
            resolve(d.toString("utf8"));
            req.destroy();
          });
        },
      );
      req.on("error", () => {});
      req.end(listen);
      setTimeout(() => reject(new Error("no acknowledgement")), 5000);
    });
    const ack = JSON.parse(
      first
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
    expect(ack).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { toolsListChanged: true },
        _meta: { "io.modelcontextprotocol/subscriptionId": "L1" },
      },
    });
  });
});

describe("bridged eras", () => {
  it("a v2 client in auto mode and the v1 client both work on the same gateway", async () => {
    const served = await serveHttp(config, ["--token", TOKEN, ...serveArgs.slice(2)]);
    open.push({ close: served.stop });
    const auto = modernClient("auto", () => ({ action: "accept", content: { approve: true } }));
    await auto.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    open.push(auto);
    expect(auto.getProtocolEra()).toBe("modern");
    const legacy = new LegacyClient({ name: "v1", version: "1" }, { capabilities: { elicitation: {} } });
    legacy.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { yes: true, approve: true },
    }));
    await legacy.connect(
      new LegacyHttp(new URL(served.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    open.push(legacy);
    expect(text(await auto.callTool({ name: "m__echo", arguments: { message: "auto" } }))).toBe("Echo: auto");
    expect(text(await legacy.callTool({ name: "m__echo", arguments: { message: "v1" } }))).toBe("Echo: v1");
    // A modern server's own question reaches the legacy client as an elicitation request (toolgate asks it).
    expect(text(await legacy.callTool({ name: "m__confirm", arguments: {} }))).toBe("confirmed yes");
    // And approval through elicitation for the legacy client, as before.
    expect(text(await legacy.callTool({ name: "m__deploy", arguments: { target: "v1" } }))).toBe(
      "deployed v1",
    );
  });
});

describe("wrap in front of a server of revision 2026-07-28", () => {
  const wrapCalls = join(dir, "wrap-calls.jsonl");
  const wrapAudit = join(dir, "wrap-audit.jsonl");
  let client: ModernClient;
  let answer: Answer = () => ({ action: "accept", content: { approve: true } });
  const wrapped = () =>
    readFileSync(wrapCalls, { encoding: "utf8", flag: "a+" })
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> });
  beforeAll(async () => {
    client = modernClient("pin", () => answer());
    await client.connect(
      new InPlaceStdio({
        command: NODE,
        args: [
          CLI,
          "wrap",
          "--policy",
          join(config, "policy.yaml"),
          "--audit-log",
          wrapAudit,
          "--",
          NODE,
          join(FIXTURES, "modernServer.mjs"),
        ],
        env: { ...process.env, MODERN_CALLS: wrapCalls } as Record<string, string>,
        cwd: ROOT,
      }),
    );
    open.push(client);
  });

  it("follows the era the two sides negotiate, and lists privately", async () => {
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerVersion()).toMatchObject({ name: "modern-fixture" });
    const list = (await client.request({ method: "tools/list", params: {} })) as Record<string, unknown>;
    expect((list.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([
      "echo",
      "deploy",
      "confirm",
      "region_echo",
      "grow",
    ]);
    expect(list).toMatchObject({ cacheScope: "private" });
  });

  it("hides, denies and approves as in the legacy era, with results valid in this one", async () => {
    expect(text(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
    const hidden = await client
      .callTool({ name: "write_note", arguments: { path: "p" } })
      .catch((e: Error) => e.message);
    const missing = await client.callTool({ name: "nope", arguments: {} }).catch((e: Error) => e.message);
    expect([hidden, missing]).toEqual(["Tool write_note not found", "Tool nope not found"]);
    const denied = (await client.request({
      method: "tools/call",
      params: { name: "echo", arguments: { message: "much too long here" } },
    })) as Record<string, unknown>;
    expect(text(denied)).toMatch(/^Blocked by policy: E_ARG_SCHEMA /);
    answer = () => ({ action: "accept", content: { approve: true } });
    expect(text(await client.callTool({ name: "deploy", arguments: { target: "w" } }))).toBe("deployed w");
    answer = () => ({ action: "decline" });
    expect(text(await client.callTool({ name: "deploy", arguments: { target: "x" } }))).toMatch(
      /E_APPROVAL_REQUIRED/,
    );
    answer = () => ({ action: "accept", content: { yes: true } });
    expect(text(await client.callTool({ name: "confirm", arguments: {} }))).toBe("confirmed yes");
    expect(wrapped().map((c) => c.name)).toEqual(["echo", "deploy", "confirm"]);
    expect(
      readAudit(wrapAudit)
        .filter((e) => e.tool === "deploy")
        .map((e) => e.decision),
    ).toEqual(["allow", "deny"]);
  });
});

describe("subscriptions/listen through serve", () => {
  it("re-announces a server's tool list change after toolgate fetched and decided it again", async () => {
    const driftConfig = configDir({
      "mcp.json": mcpJson({ d: { command: NODE, args: [join(FIXTURES, "driftServer.mjs")] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const client = modernClient("pin", () => ({ action: "decline" }));
    let changes = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => void changes++);
    await client.connect(
      new InPlaceStdio({ command: NODE, args: [CLI, "serve", "--config-dir", driftConfig], cwd: ROOT }),
    );
    open.push(client);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    const before = (
      (await client.request({ method: "tools/list", params: {} })) as {
        tools: Array<{ name: string; inputSchema: unknown }>;
      }
    ).tools;
    await client.callTool({ name: "d__tighten", arguments: {} });
    await expect.poll(() => changes, { timeout: 5000 }).toBeGreaterThan(0);
    const after = (
      (await client.request({ method: "tools/list", params: {} })) as {
        tools: Array<{ name: string; inputSchema: unknown }>;
      }
    ).tools;
    expect(JSON.stringify(after.find((t) => t.name === "d__echo"))).not.toBe(
      JSON.stringify(before.find((t) => t.name === "d__echo")),
    );
    await subscription.close();
  });
});

describe("a modern server's tool list change through serve", () => {
  it("is heard on toolgate's own listen stream, decided again and announced to a legacy client", async () => {
    const growConfig = configDir({
      "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const served = await serveHttp(growConfig, ["--token", TOKEN]);
    open.push({ close: served.stop });
    const legacy = new LegacyClient({ name: "v1", version: "1" });
    let changes = 0;
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await legacy.connect(
      new LegacyHttp(new URL(served.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
    );
    open.push(legacy);
    expect((await legacy.listTools()).tools.map((t) => t.name)).not.toContain("m__extra");
    expect(text(await legacy.callTool({ name: "m__grow", arguments: {} }))).toBe("grown");
    await expect.poll(() => changes, { timeout: 5000 }).toBeGreaterThan(0);
    expect((await legacy.listTools()).tools.map((t) => t.name)).toContain("m__extra");
  });
});
