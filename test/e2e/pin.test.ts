// toolgate pin against real servers: the printed block loads in a v2 policy and every pin matches the
// catalog as src/pins hashes it.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { loadPolicyFile } from "../../src/config/policyLoader.js";
import { checkPins } from "../../src/engine/pins/drift.js";
import { metaHash, schemaHash } from "../../src/engine/pins/hashes.js";
import {
  CLI,
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  NODE,
  ROOT,
  tempDir,
  wrapCommand,
  writePolicy,
} from "./helpers.js";

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function toolgate(args: string[]): Run {
  const run = spawnSync(NODE, [CLI, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

type PinBlock = Record<string, Record<string, string>>;

/** The catalog as an independent SDK client lists it from the bare server. */
async function liveTools(command: string[]): Promise<Tool[]> {
  const bare = await connect({ command: command[0]!, args: command.slice(1) });
  try {
    return (await bare.client.listTools()).tools;
  } finally {
    await bare.close();
  }
}

/** Pastes the block into a v2 policy; `policy validate` must accept it and the loader must read every pin. */
function policyWith(dir: string, block: string, name: string): string {
  const path = writePolicy(
    dir,
    `version: "2.0"\nname: pinned\nenforcement:\n  unpinned_tools: deny\n\n${block}`,
    name,
  );
  const validated = toolgate(["policy", "validate", "--input", path, "--format", "json"]);
  expect(validated.stderr).toBe("");
  expect(validated.status).toBe(0);
  expect(JSON.parse(validated.stdout)).toMatchObject({ valid: true });
  return path;
}

let dir: string;
beforeAll(() => {
  dir = tempDir("tg-pin-e2e-");
});
afterAll(() => {});

describe("toolgate pin -- CMD against server-everything", () => {
  const server = [NODE, EVERYTHING_SERVER];
  let run: Run;
  let tools: Tool[];

  beforeAll(async () => {
    run = toolgate(["pin", "--", ...server]);
    tools = await liveTools(server);
  });

  it("prints a tool_pins block, one entry per tool, keys sorted, exit 0", () => {
    expect(run.status).toBe(0);
    const block = (parseYaml(run.stdout) as { tool_pins: PinBlock }).tool_pins;
    const names = tools.map((t) => t.name).sort();
    expect(Object.keys(block)).toEqual(names);
    expect(names.length).toBe(13);
  });

  it("each pin's hashes are src/pins' hashes of the live definition; server_id is the server's own name", () => {
    const block = (parseYaml(run.stdout) as { tool_pins: PinBlock }).tool_pins;
    for (const tool of tools) {
      expect(block[tool.name]).toEqual({
        server_id: "mcp-servers/everything",
        tool_name: tool.name,
        schema_hash: schemaHash(tool.inputSchema),
        meta_hash: metaHash(tool.description),
      });
    }
  });

  it("loads in a v2 policy: validate passes and every live tool matches its pin (none unpinned)", () => {
    const path = policyWith(dir, run.stdout, "everything-pins.yaml");
    const { policy } = loadPolicyFile(path);
    expect(policy!.toolPins).toHaveLength(tools.length);
    for (const tool of tools) {
      const check = checkPins(policy!.toolPins, tool, {
        serverId: "mcp-servers/everything",
        unpinned: "deny",
      });
      expect(check).toEqual({ ok: true, pins: [tool.name] });
    }
  });

  it("wrap with the pasted block and unpinned_tools: deny shows every tool; a pin that no longer matches withholds its tool", async () => {
    const path = policyWith(dir, run.stdout, "everything-wrap.yaml");
    const shown = async (policy: string): Promise<string[]> => {
      const wrapped = await connect(wrapCommand(["--policy", policy], server));
      try {
        return (await wrapped.client.listTools()).tools.map((t) => t.name).sort();
      } finally {
        await wrapped.close();
      }
    };
    expect(await shown(path)).toEqual(tools.map((t) => t.name).sort());
    const echo = tools.find((t) => t.name === "echo")!;
    const drifted = readFileSync(path, "utf8").replace(
      metaHash(echo.description),
      metaHash("an older description"),
    );
    const driftedPath = writePolicy(dir, drifted, "everything-drifted.yaml");
    const names = await shown(driftedPath);
    expect(names).not.toContain("echo");
    expect(names).toHaveLength(tools.length - 1);
  });

  it("two runs print the same bytes", () => {
    expect(toolgate(["pin", "--", ...server]).stdout).toBe(run.stdout);
  });

  it("a changed description is a different pin", () => {
    const echo = tools.find((t) => t.name === "echo")!;
    const { policy } = loadPolicyFile(policyWith(dir, run.stdout, "everything-pins-2.yaml"));
    const check = checkPins(
      policy!.toolPins,
      { ...echo, description: `${echo.description ?? ""} (now also sends your files away)` },
      { serverId: "mcp-servers/everything", unpinned: "deny" },
    );
    expect(check).toMatchObject({ ok: false, code: "E_TOOL_DRIFT" });
  });
});

describe("toolgate pin against server-filesystem", () => {
  it("-- CMD with --server-id and --format json; the pins match the live catalog", async () => {
    const root = tempDir("tg-pin-fs-");
    const server = [NODE, FILESYSTEM_SERVER, root];
    const run = toolgate(["pin", "--server-id", "filesystem-prod", "--format", "json", "--", ...server]);
    expect(run.status).toBe(0);
    const block = (JSON.parse(run.stdout) as { tool_pins: PinBlock }).tool_pins;
    const tools = await liveTools(server);
    expect(Object.keys(block)).toEqual(tools.map((t) => t.name).sort());
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const tool of tools) {
      expect(block[tool.name]).toEqual({
        server_id: "filesystem-prod",
        tool_name: tool.name,
        schema_hash: schemaHash(tool.inputSchema),
        meta_hash: metaHash(tool.description),
      });
    }
  });

  it("--config-dir D --server S: the mcp.json entry (relative cwd, env), server_id S, --output F", async () => {
    const config = tempDir("tg-pin-cfg-");
    const root = tempDir("tg-pin-fs-");
    writeFileSync(
      join(config, "mcp.json"),
      JSON.stringify({
        mcpServers: {
          files: { command: NODE, args: [FILESYSTEM_SERVER, root], env: { PIN_E2E: "1" }, cwd: "." },
        },
      }),
    );
    const out = join(config, "pins.yaml");
    const run = toolgate(["pin", "--config-dir", config, "--server", "files", "--output", out]);
    expect(run.stderr).toContain(`to ${out}`);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    const text = readFileSync(out, "utf8");
    const block = (parseYaml(text) as { tool_pins: PinBlock }).tool_pins;
    const tools = await liveTools([NODE, FILESYSTEM_SERVER, root]);
    for (const tool of tools) {
      expect(block[tool.name]).toMatchObject({
        server_id: "files",
        schema_hash: schemaHash(tool.inputSchema),
      });
    }
    const { policy } = loadPolicyFile(policyWith(config, text, "policy.yaml"));
    for (const tool of tools) {
      expect(checkPins(policy!.toolPins, tool, { serverId: "files", unpinned: "deny" }).ok).toBe(true);
    }
  });
});

describe("toolgate pin: usage and unreachable servers", () => {
  it("no command and no --server: exit 2", () => {
    const run = toolgate(["pin"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("E_USAGE");
  });

  it("a server not in mcp.json: exit 2 with the configured names", () => {
    const config = tempDir("tg-pin-cfg-");
    writeFileSync(join(config, "mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    const run = toolgate(["pin", "--config-dir", config, "--server", "b"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("E_UNKNOWN_SERVER");
    expect(run.stderr).toContain("configured servers: a");
  });

  it("a command that does not exist, or a server that exits at once: exit 1, E_UPSTREAM_CONNECT with its stderr", () => {
    const missing = toolgate(["pin", "--", "/nonexistent/mcp-server"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("E_UPSTREAM_CONNECT");
    const dies = toolgate([
      "pin",
      "--timeout",
      "5000",
      "--",
      NODE,
      "-e",
      "console.error('no key configured'); process.exit(3)",
    ]);
    expect(dies.status).toBe(1);
    expect(dies.stderr).toContain("E_UPSTREAM_CONNECT");
    expect(dies.stderr).toContain("no key configured");
  });
});
