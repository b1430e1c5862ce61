// `toolgate wrap --config-dir D --server S`: the layers of S in the chosen context apply as well as the policy,
// with S's own command from mcp.json, driven by the official SDK client against real servers.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogEntry, CATALOG_SERVER, configDir, mcpJson, runCli } from "./configDirHelpers.js";
import {
  CLI,
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  NODE,
  outcome,
  type Connected,
} from "./helpers.js";

const READ_TOOLS = [
  "list_allowed_directories",
  "list_directory",
  "list_directory_with_sizes",
  "read_file",
  "read_multiple_files",
  "read_text_file",
];

let dir: string;
let bare: Connected;
let wrapped: Connected;

function wrapArgs(args: string[], server: string[] = []): { command: string; args: string[] } {
  return { command: NODE, args: [CLI, "wrap", ...args, ...(server.length > 0 ? ["--", ...server] : [])] };
}

beforeAll(async () => {
  dir = configDir({
    "mcp.json": mcpJson({
      // A relative cwd is resolved against the directory; the server's root "." is that cwd.
      fs: { command: NODE, args: [FILESYSTEM_SERVER, "."], cwd: "ws" },
      everything: { command: NODE, args: [EVERYTHING_SERVER], env: { TG_WRAP_MARK: "from-mcp-json" } },
      remote: { type: "http", url: "http://127.0.0.1:9/mcp" },
      off: catalogEntry(["x"]),
    }),
    "config.yaml": "enabled_mcp_servers: [fs, everything, remote]\npolicy: policy.yaml\n",
    "policy.yaml": 'version: "2.0"\ntools:\n  deny: [read_media_file]\n',
    "roles/reader.md": "---\nmcp_tools:\n  fs: read_*,list_*,typo_*\n---\nreads only\n",
  });
  mkdirSync(join(dir, "ws"));
  bare = await connect({ command: NODE, args: [FILESYSTEM_SERVER, join(dir, "ws")] });
  wrapped = await connect(wrapArgs(["--config-dir", dir, "--server", "fs", "--role", "reader"]));
});

afterAll(async () => {
  await wrapped?.close();
  await bare?.close();
});

describe("wrap --config-dir --server", () => {
  it("runs the entry's command and lists only what the role layer and the policy leave", async () => {
    const all = (await bare.client.listTools()).tools.map((t) => t.name);
    expect(all).toContain("write_file");
    expect(all).toContain("read_media_file");
    const shown = (await wrapped.client.listTools()).tools.map((t) => t.name);
    expect([...shown].sort()).toEqual(READ_TOOLS);
  });

  it("a tool hidden by the role layer is answered exactly as a tool the server does not have", async () => {
    const missing = "zz_missing_tool_for_e2e";
    const bareAnswer = await outcome(bare.client.callTool({ name: missing, arguments: {} }));
    for (const hidden of ["write_file", "read_media_file"]) {
      const answer = await outcome(wrapped.client.callTool({ name: hidden, arguments: { path: "x" } }));
      expect(answer).toEqual(JSON.parse(JSON.stringify(bareAnswer).split(missing).join(hidden)));
    }
  });

  it("allowed calls reach the server, which runs in the entry's cwd", async () => {
    const result = await wrapped.client.callTool({ name: "list_allowed_directories", arguments: {} });
    expect(JSON.stringify(result.content)).toContain(join(dir, "ws"));
  });

  it("logs the role's dead pattern with file and line when the catalog is fetched", async () => {
    await expect
      .poll(() => wrapped.stderr())
      .toContain(
        `${join(dir, "roles/reader.md")}:3:21: warning W_DEAD_PATTERN mcp_tools.fs: role pattern 'typo_*' matches no allowed tools on 'fs' (role (reader))`,
      );
  });

  it("passes the entry's env on top of the wrapper's environment", async () => {
    const client = await connect(wrapArgs(["--config-dir", dir, "--server", "everything"]));
    try {
      const result = await client.client.callTool({ name: "get-env", arguments: {} });
      const text = JSON.stringify(result.content);
      expect(text).toContain("TG_WRAP_MARK");
      expect(text).toContain("from-mcp-json");
    } finally {
      await client.close();
    }
  });

  it("a command after -- wins over the entry's command (and says so); the layers still apply", async () => {
    const client = await connect(
      wrapArgs(
        ["--config-dir", dir, "--server", "fs", "--role", "reader"],
        [NODE, CATALOG_SERVER, "read_notes", "write_notes", "list_things"],
      ),
    );
    try {
      const shown = (await client.client.listTools()).tools.map((t) => t.name);
      expect(shown).toEqual(["read_notes", "list_things"]);
      const hidden = await client.client.callTool({ name: "write_notes", arguments: {} });
      expect(hidden).toEqual({
        content: [{ type: "text", text: "MCP error -32602: Tool write_notes not found" }],
        isError: true,
      });
      await expect
        .poll(() => client.stderr())
        .toContain("running the command after -- instead of the entry of 'fs' in mcp.json");
    } finally {
      await client.close();
    }
  });

  it("--policy wins over config.yaml's policy:", async () => {
    const other = join(dir, "other.yaml");
    writeFileSync(other, 'version: "2.0"\ntools:\n  deny: [list_directory]\n');
    const client = await connect(
      wrapArgs(["--config-dir", dir, "--server", "fs", "--role", "reader", "--policy", other]),
    );
    try {
      const shown = (await client.client.listTools()).tools.map((t) => t.name);
      expect(shown).not.toContain("list_directory");
      expect(shown).toContain("list_directory_with_sizes");
    } finally {
      await client.close();
    }
  });
});

describe("wrap --config-dir refuses to start", () => {
  it.each([
    [["--config-dir", "DIR"], "need --server <name>"],
    [["--role", "reader", "--", "node", "x"], "need --server <name>"],
    [
      ["--config-dir", "DIR", "--server", "nope"],
      "error E_UNKNOWN_SERVER: MCP server 'nope' is not configured in mcp.json",
    ],
    [["--config-dir", "DIR", "--server", "off"], "error E_SERVER_NOT_ENABLED"],
    [["--config-dir", "DIR", "--server", "remote"], "is an http server, and wrap runs a stdio server"],
    [["--config-dir", "DIR", "--server", "fs", "--role", "missing"], "no role 'missing'"],
  ])("%j", async (args, message) => {
    const run = await runCli(["wrap", ...args.map((a) => (a === "DIR" ? dir : a))]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
  });
});
