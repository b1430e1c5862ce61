// When wrap or serve cannot start, the host shows its user only what comes back on the connection: toolgate
// answers the host's initialize (and a server/discover probe before it) with a JSON-RPC error carrying the
// first error it printed, with its hint, then exits. With the official SDK clients of both lines.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { configDir } from "./configDirHelpers.js";
import { CLI, connect, FILESYSTEM_SERVER, NODE, ROOT, tempDir, wrapCommand, writePolicy } from "./helpers.js";

const dir = tempDir("tg-host-");
const badPolicy = writePolicy(dir, 'version: "2.0"\ntools:\n  deny: write_file\n', "bad.yaml");

/** Connects the v1 SDK client; the error it gets, and the exit status of the process it started. */
async function failure(command: string, args: string[]): Promise<{ message: string; status: number | null }> {
  const exited = new Promise<number | null>((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "ignore"] });
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }) + "\n",
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.on("exit", (code) => {
      lastOutput = out;
      resolve(code);
    });
  });
  let lastOutput = "";
  const status = await exited;
  const answer = JSON.parse(lastOutput.split("\n")[0]!) as {
    id: number;
    error: { code: number; message: string };
  };
  expect(answer.id).toBe(1);
  return { message: answer.error.message, status };
}

describe("wrap that cannot start", () => {
  it("answers initialize with the policy's first error, file, line and hint; exits 2; the server never starts", async () => {
    const { message, status } = await failure(NODE, [
      CLI,
      "wrap",
      "--policy",
      badPolicy,
      "--",
      NODE,
      FILESYSTEM_SERVER,
      dir,
    ]);
    expect(status).toBe(2);
    expect(message).toMatch(
      /^toolgate: .*bad\.yaml:3:9: error E_POLICY_FIELD_TYPE tools\.deny: expected a list/,
    );
    expect(message).toContain('(hint: write a list: ["write_file"])');
  });

  it("answers initialize with why a command was not found: the PATH it searched and what to do", async () => {
    const { message, status } = await failure(NODE, [CLI, "wrap", "--", "tg-no-such-server-xyz", "--flag"]);
    expect(status).toBe(127);
    expect(message).toContain("'tg-no-such-server-xyz' was not found (spawn ENOENT) on PATH=");
    expect(message).toContain("give the command's absolute path");
  });

  it("is shown by the SDK clients as their connection error (v1; v2 in auto mode, after its probe)", async () => {
    const spec = wrapCommand(["--policy", badPolicy], [NODE, FILESYSTEM_SERVER, dir]);
    await expect(connect(spec)).rejects.toThrow(/bad\.yaml:3:9: error E_POLICY/);
    const modern = new ModernClient({ name: "t", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await expect(modern.connect(new ModernStdio({ ...spec, cwd: ROOT, stderr: "ignore" }))).rejects.toThrow(
      /bad\.yaml:3:9: error E_POLICY/,
    );
  });
});

describe("serve --stdio that cannot start", () => {
  it("answers initialize with the configuration's first error, and exits 2", async () => {
    const cfg = configDir({
      "mcp.json": '{ "mcpServers": { "a": { "command": "x" } ',
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const { message, status } = await failure(NODE, [CLI, "serve", "--config-dir", cfg]);
    expect(status).toBe(2);
    expect(message).toMatch(/mcp\.json:1:\d+: error E_SYNTAX .*not valid JSON/);
    expect(message).not.toContain(join(cfg, "nothing"));
  });
});
