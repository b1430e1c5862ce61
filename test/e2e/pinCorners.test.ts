// Pin corner cases against a server written here, byte for byte: a tool without an inputSchema is pinned
// with the hash of null and then shown; integers past the 64-bit range are one value to exact_schema_hash
// (no drift when only their unrepresentable digits change); `policy migrate` leaves a v2 file as it is;
// --verbose names warnings.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./configDirHelpers.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect, NODE, tempDir, wrapCommand, type Connected } from "./helpers.js";

const SERVER = `
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const id = JSON.stringify(m.id);
    if (m.method === "initialize") {
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "corners", version: "1" } } }) + "\\n");
    } else if (m.method === "tools/list") {
      // Written as text: the big integer keeps its digits on the wire.
      process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"tools":[{"name":"bare","description":"no schema"},{"name":"huge","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":' + (process.env.HUGE ?? "123456789012345678901234567890") + '}}}}]}}\\n');
    } else if (m.method === "tools/call") {
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "ran " + m.params.name }] } }) + "\\n");
    } else {
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {} }) + "\\n");
    }
  }
});
`;
const dir = tempDir("tg-pincorners-");

async function names(c: Connected): Promise<string[]> {
  const listed = (await c.client.request({ method: "tools/list", params: {} }, ResultSchema)) as {
    tools: Array<{ name: string }>;
  };
  return listed.tools.map((t) => t.name).sort();
}
const server = join(dir, "corners.cjs");
writeFileSync(server, SERVER);

describe("pins of unusual tools", () => {
  it("pins a tool without an inputSchema with the hash of null, and the pinned tool is shown and callable", async () => {
    const run = await runCli(["pin", "--server-id", "corners", "--", NODE, server]);
    expect(run.code).toBe(0);
    const nullHash = createHash("sha256").update("null").digest("hex");
    expect(run.stdout).toContain(`schema_hash: "${nullHash}"`);
    const policy = join(dir, "pinned.yaml");
    writeFileSync(
      policy,
      `version: "2.0"\n${run.stdout}\nenforcement:\n  unconstrained_tools: warn\n  unpinned_tools: deny\n`,
    );
    const c = await connect(
      wrapCommand(["--policy", policy, "--label", "corners", "--verbose"], [NODE, server]),
    );
    try {
      // Read raw: the SDK client's own Tool type refuses a tool without an inputSchema.
      expect(await names(c)).toEqual(["bare", "huge"]);
      expect(await c.client.callTool({ name: "bare", arguments: {} })).toMatchObject({
        content: [{ text: "ran bare" }],
      });
      await new Promise((r) => setTimeout(r, 100));
      // The warning the call raised is on its verbose line.
      expect(c.stderr()).toMatch(/tools\/call bare: allow — .*\(warnings: E_TOOL_UNCONSTRAINED\)/);
    } finally {
      await c.close();
    }
    // Past the 64-bit range only the double counts: changing digits it cannot hold is no drift.
    const same = await connect({
      ...wrapCommand(["--policy", policy, "--label", "corners"], [NODE, server]),
      env: { HUGE: "123456789012345678901234567891" },
    });
    try {
      expect(await names(same)).toContain("huge");
    } finally {
      await same.close();
    }
  });
});

describe("toolgate policy migrate on a v2 file", () => {
  it("leaves it untouched, comments and layout included, and prints it unchanged with --stdout", async () => {
    const file = join(dir, "v2.yaml");
    const text = '# our policy\nversion: "2.0"\ntools:\n  allow: [read_file]   # reads only\n';
    writeFileSync(file, text);
    const run = await runCli(["policy", "migrate", "--input", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("already version 2.0; left unchanged");
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(existsSync(`${file}.v1.bak`)).toBe(false);
    const printed = await runCli(["policy", "migrate", "--input", file, "--stdout"]);
    expect(printed.stdout).toBe(text);
  });
});
