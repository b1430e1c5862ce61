// Same request, same answer on every surface: a request of the other era on a connection whose era is
// pinned gets one error (code, message and data) from wrap and from serve over stdio, since both read the
// era through one protocol layer (engine/protocol/eraPin.ts). The server is the v2-SDK fixture that speaks
// both eras, so anything toolgate forwards would be answered, and a difference would show.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "../e2e/configDirHelpers.js";
import { CLI, FIXTURES, NODE, RawWrapper, writePolicy, tempDir } from "../e2e/helpers.js";

const SERVER = join(FIXTURES, "modernServer.mjs");
const MODERN = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const policy = writePolicy(
  tempDir("tg-era-"),
  'version: "2.0"\ntools:\n  allow: ["*"]\nenforcement: { unconstrained_tools: allow }\n',
);
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [SERVER] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
});

const surfaces: Record<string, string[]> = {
  wrap: [CLI, "wrap", "--policy", policy, "--", NODE, SERVER],
  "serve --stdio": [CLI, "serve", "--config-dir", config, "--policy", policy],
};

const open: RawWrapper[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

function start(args: string[]): RawWrapper {
  const process = new RawWrapper({ command: NODE, args });
  open.push(process);
  return process;
}

/** The error each surface answers the last request of `requests` with (earlier ones must succeed). */
async function lastError(
  args: string[],
  requests: Array<{ method: string; params: Record<string, unknown> }>,
): Promise<unknown> {
  const p = start(args);
  for (const [i, request] of requests.entries()) {
    p.sendJson({ jsonrpc: "2.0", id: i + 1, ...request });
    const answer = await p.response(i + 1, 60_000);
    if (i < requests.length - 1) {
      expect(answer.error, JSON.stringify(answer)).toBeUndefined();
      if (request.method === "initialize")
        p.sendJson({ jsonrpc: "2.0", method: "notifications/initialized" });
    } else return answer.error;
  }
  return undefined;
}

const initialize = {
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const modernList = { method: "tools/list", params: { _meta: envelope } };

const cases: Record<string, Array<{ method: string; params: Record<string, unknown> }>> = {
  "initialize after a modern request": [modernList, initialize],
  "a modern request after initialize": [initialize, modernList],
  "a request without the envelope after a modern one": [modernList, { method: "tools/list", params: {} }],
};

describe("a request of the other era gets one answer on every surface", () => {
  for (const [name, requests] of Object.entries(cases)) {
    it(
      name,
      async () => {
        const answers = await Promise.all(Object.values(surfaces).map((args) => lastError(args, requests)));
        expect(answers[0]).toBeDefined();
        expect(answers[0]).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
        for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
      },
      120_000,
    );
  }
});
