// What only toolgate wrap does with the controls, against real servers and the official SDK client: a server
// run without --label has its pins bound to the only server they name, never to its own serverInfo.name.
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

  it("without --label the pins bind to the only server they name, not to the name the server gives itself", async () => {
    // Pinned under the label: run without --label, the server calls itself 'mcp-servers/everything'.
    const dir = tempDir("tg-controls-");
    const policy = writePolicy(
      dir,
      `version: "2.0"\ntool_pins:\n${pinsYaml(bareTools)}enforcement: { unconstrained_tools: allow, unpinned_tools: deny }\n`,
    );
    const c = await connect(
      wrapCommand(["--policy", policy, "--audit-log", join(dir, "audit.jsonl")], [NODE, EVERYTHING_SERVER]),
    );
    open.push(c);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(bareTools.map((t) => t.name));
    await expect
      .poll(() => c.stderr())
      .toContain(
        "warning W_SERVER_NAME_CHANGED: the server calls itself 'mcp-servers/everything', not 'everything' as its tool_pins name it",
      );
  });

  it("with --label naming another server, pins naming a server wrap does not run still hold its tools", async () => {
    const dir = tempDir("tg-controls-");
    const pins = pinsYaml(bareTools).replace('"echo":', '"echo_wrong":');
    const wrongEcho = pins.replace(
      /("echo_wrong":\n {4}server_id: everything\n {4}tool_name: "echo"\n {4}schema_hash: ")[0-9a-f]{64}/,
      `$1${"0".repeat(64)}`,
    );
    const policy = writePolicy(
      dir,
      `version: "2.0"\ntool_pins:\n${wrongEcho}enforcement: { unconstrained_tools: allow }\n`,
    );
    const c = await connect(wrapCommand(["--policy", policy, "--label", "run-7"], [NODE, EVERYTHING_SERVER]));
    open.push(c);
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("echo");
    expect(names).toContain("get-sum");
    await expect
      .poll(() => c.stderr())
      .toContain(
        "warning W_PIN_SERVER tool_pins.echo_wrong: names server 'everything', which toolgate does not serve here",
      );
  });
});
