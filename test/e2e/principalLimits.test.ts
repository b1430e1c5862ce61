// Limits count per principal (the token), not per session: under serve --http with the default memory
// state, a token's 2025-era sessions and its 2026-07-28 requests draw on one count, so opening another
// session, or switching eras, buys no more calls. Another token has its own.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { FIXTURES, NODE } from "./helpers.js";
import { httpClient, serveHttp, textOf, type HttpServe } from "./serveHelpers.js";

const ALICE = "alice-limits-token-0123456789";
const BOB = "bob-limits-token-0123456789ab";
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "tokens.yaml": `- name: alice\n  token: ${ALICE}\n- name: bob\n  token: ${BOB}\n`,
  "policy.yaml":
    'version: "2.0"\nenforcement: { unconstrained_tools: allow }\nlimits: { max_tool_calls_total: 3 }\n',
});

let served: HttpServe;
beforeAll(async () => {
  served = await serveHttp(config, [
    "--tokens",
    join(config, "tokens.yaml"),
    "--policy",
    join(config, "policy.yaml"),
  ]);
});
afterAll(async () => {
  await served.stop();
});

const echo = (
  client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> },
  message: string,
) => client.callTool({ name: "m__echo", arguments: { message } }).then(textOf);

describe("limits per principal", () => {
  it("a token's sessions of both eras share one count; another token has its own", async () => {
    const first = (await httpClient(served.url, ALICE)).client;
    const second = (await httpClient(served.url, ALICE)).client;
    const modern = new ModernClient(
      { name: "limits", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${ALICE}` } },
      }),
    );
    expect(await echo(first, "1")).toBe("Echo: 1");
    expect(await echo(second, "2")).toBe("Echo: 2");
    expect(await echo(modern, "3")).toBe("Echo: 3");
    for (const client of [first, second, modern])
      expect(await echo(client, "more")).toContain("E_RATE_LIMIT");
    const bob = (await httpClient(served.url, BOB)).client;
    expect(await echo(bob, "bob")).toBe("Echo: bob");
    for (const client of [first, second, modern, bob]) await client.close();
  });
});
