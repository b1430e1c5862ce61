// What only toolgate wrap does with the controls, against real servers and the official SDK client: a server
// run without --label is named by its own serverInfo.name, so pins made for another server_id do not apply.
// The controls every surface shares (approval, scope, redaction, pins, visibility, dry run, limits) are the
// conformance suite's: test/conformance, run against wrap and every serve surface alike.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinForTool } from "../../src/engine/pins/exactHash.js";
import {
  connect,
  EVERYTHING_SERVER,
  NODE,
  tempDir,
  wrapCommand,
  writePolicy,
  type Connected,
} from "./helpers.js";

const open: Connected[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

describe("tool pins (server-everything)", () => {
  const LABEL = "everything";
  let bareTools: Array<{ name: string; description?: string; inputSchema: unknown }>;
  beforeAll(async () => {
    const bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
    open.push(bare);
    bareTools = (await bare.client.listTools()).tools;
  });
  const pinsYaml = (tools: typeof bareTools) =>
    tools
      .map((t) => {
        const pin = pinForTool(t, undefined, LABEL);
        return `  ${JSON.stringify(t.name)}:\n    server_id: ${LABEL}\n    tool_name: ${JSON.stringify(t.name)}\n    schema_hash: "${pin.schema_hash}"\n    meta_hash: "${pin.meta_hash}"\n`;
      })
      .join("");

  it("pins of another server_id do not apply; the server's own name is used without --label", async () => {
    // Pinned under the label only: run without --label, the server is named by its serverInfo.name.
    const dir = tempDir("tg-controls-");
    const policy = writePolicy(
      dir,
      `version: "2.0"\ntool_pins:\n${pinsYaml(bareTools)}enforcement: { unconstrained_tools: allow, unpinned_tools: deny }\n`,
    );
    const c = await connect(
      wrapCommand(["--policy", policy, "--audit-log", join(dir, "audit.jsonl")], [NODE, EVERYTHING_SERVER]),
    );
    open.push(c);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual([]);
    await expect
      .poll(() => c.stderr())
      .toContain("tool 'echo' on server 'mcp-servers/everything' has no pin");
  });
});
