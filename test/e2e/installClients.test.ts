// toolgate install / uninstall in front of real hosts: Claude Code 2.1.332 (its own `claude mcp add`
// writes the entries, `claude mcp list/get` checks them: the wrapped server connects, a broken policy
// shows toolgate's diagnostic) and the MCP Inspector CLI 2.12.0 (lists and calls tools through an
// installed Claude Desktop entry). Both are installed on first use (realClients.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, NODE, readAudit, ROOT, tempDir } from "./helpers.js";
import { claude, CLAUDE_CODE, claudeEnv, INSPECTOR, installedBin } from "./realClients.js";
import { serveHttp } from "./serveHelpers.js";

const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

function toolgate(home: string, args: string[], cwd = home) {
  return spawnSync(NODE, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  });
}

function mcpServersOf(file: string): Record<string, unknown> {
  return (JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, unknown> }).mcpServers;
}

describe("toolgate install claude-code, checked by Claude Code itself", () => {
  let bin = "";
  const home = tempDir("tg-cc-home-");
  const project = join(home, "proj");
  const state = join(home, ".claude.json");
  beforeAll(() => {
    bin = installedBin(CLAUDE_CODE, "claude");
    mkdirSync(project);
    const memory = join(home, "memory.json");
    for (const [scope, name] of [
      ["user", "memory"],
      ["local", "notes"],
    ] as const) {
      const added = claude(
        bin,
        home,
        ["mcp", "add", "-s", scope, name, "-e", `MEMORY_FILE_PATH=${memory}`, "--", "node", MEMORY_SERVER],
        project,
      );
      expect(added.status, added.stderr).toBe(0);
    }
  }, 300_000);

  it("wraps the user and the project's server; Claude Code connects through toolgate", () => {
    const before = readFileSync(state, "utf8");
    const dry = toolgate(home, ["install", "claude-code", "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('+        "wrap",');
    expect(dry.stderr).toContain("would write a starter policy to");
    expect(readFileSync(state, "utf8")).toBe(before);

    const installed = toolgate(home, ["install", "claude-code"]);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stderr).toContain("wrapped 2 servers of Claude Code");
    const policies = join(home, ".config/toolgate/policies/claude-code");
    expect(readFileSync(join(policies, "memory.yaml"), "utf8")).toContain("tool_pins:");
    expect(readFileSync(join(policies, "notes@proj.yaml"), "utf8")).toContain("tool_pins:");

    const list = claude(bin, home, ["mcp", "list"], project);
    expect(list.stdout).toMatch(
      /memory: \S+ \S+ wrap --policy \S+memory\.yaml --audit-log \S+\/audit\/claude-code\/memory\.jsonl -- node \S+ - ✔ Connected/,
    );
    expect(list.stdout).toMatch(/notes: .* - ✔ Connected/);
    const get = claude(bin, home, ["mcp", "get", "memory"], project);
    expect(get.stdout).toContain("Status: ✔ Connected");
    expect(get.stdout).toContain(`Command: ${NODE}`);
    // The dry run and the install each start both servers, then Claude Code starts them twice more.
  }, 120_000);

  it("shows toolgate's own diagnostic in Claude Code when the policy is broken", () => {
    const policy = join(home, ".config/toolgate/policies/claude-code/memory.yaml");
    const good = readFileSync(policy, "utf8");
    writeFileSync(policy, good.replace('version: "2.0"', 'version: "9.9"'));
    try {
      const list = claude(bin, home, ["mcp", "list"], project);
      expect(list.stdout).toMatch(/memory: .* - ✘ Failed to connect — -32\d+: toolgate: .*9\.9/);
      expect(list.stdout).toMatch(/notes: .* - ✔ Connected/);
    } finally {
      writeFileSync(policy, good);
    }
  });

  it("a second install changes nothing; uninstall puts every entry back while Claude Code keeps its state", () => {
    const again = toolgate(home, ["install", "claude-code"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain("memory: left as it is: it already runs through toolgate wrap");

    const undone = toolgate(home, ["uninstall", "claude-code"]);
    expect(undone.status, undone.stderr).toBe(0);
    const memory = mcpServersOf(state).memory as { command: string; args: string[] };
    expect(memory.command).toBe("node");
    expect(memory.args).toEqual([MEMORY_SERVER]);
    const get = claude(bin, home, ["mcp", "get", "notes"], project);
    expect(get.stdout).toContain("Command: node");
    expect(get.stdout).toContain("Status: ✔ Connected");
    const none = toolgate(home, ["uninstall", "claude-code"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("error E_USAGE: toolgate install claude-code has not changed");
  });
});

describe("Claude Code against toolgate serve --http", () => {
  it("without a token shows how to send one; with the header it connects", async () => {
    const bin = installedBin(CLAUDE_CODE, "claude");
    const token = "cc-e2e-token-0123456789abcdefghij";
    const dir = configDir({
      "mcp.json": mcpJson({ memory: { command: NODE, args: [MEMORY_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const served = await serveHttp(dir, [], { TOOLGATE_TOKEN: token });
    try {
      const home = tempDir("tg-cc-http-");
      const add = (name: string, extra: string[]) =>
        claude(
          bin,
          home,
          ["mcp", "add", "--transport", "http", "-s", "user", name, served.url, ...extra],
          home,
        );
      expect(add("bare", []).status).toBe(0);
      expect(add("keyed", ["--header", `Authorization: Bearer ${token}`]).status).toBe(0);
      // The README's own line, as a person pastes it (only the port is this test's).
      const readme = readFileSync(join(ROOT, "README.md"), "utf8");
      const line = /^claude mcp add --transport http toolgate .*$/m.exec(readme)![0];
      const pasted = spawnSync(
        "sh",
        ["-c", line.replace("claude ", '"$CLAUDE" ').replace("http://127.0.0.1:8931/mcp", served.url)],
        {
          cwd: home,
          encoding: "utf8",
          timeout: 90_000,
          env: { ...claudeEnv(home), CLAUDE: bin, TOOLGATE_TOKEN: token },
        },
      );
      expect(pasted.status, pasted.stderr).toBe(0);
      const list = claude(bin, home, ["mcp", "list"], home);
      expect(list.stdout).toContain("bare: ");
      expect(list.stdout).toMatch(
        /bare: .* - ✘ Failed to connect — .*static bearer tokens, not OAuth: send the header/,
      );
      expect(list.stdout).toMatch(/keyed: .* - ✔ Connected/);
      expect(list.stdout).toMatch(/toolgate: .* - ✔ Connected/);
    } finally {
      await served.stop();
    }
  }, 120_000);
});

describe("the MCP Inspector CLI through an installed Claude Desktop entry", () => {
  let bin = "";
  const home = tempDir("tg-insp-home-");
  const file = join(home, "claude_desktop_config.json");
  beforeAll(() => {
    bin = installedBin(INSPECTOR, "mcp-inspector");
    const config = {
      mcpServers: {
        memory: { command: "node", args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(home, "m.json") } },
      },
    };
    writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
    const installed = toolgate(home, ["install", "claude-desktop", "--config", file]);
    expect(installed.status, installed.stderr).toBe(0);
  }, 300_000);

  function inspector(args: string[]) {
    const run = spawnSync(
      bin,
      ["--cli", "-q", "--config", file, "--server", "memory", "--format", "json", ...args],
      {
        cwd: home,
        encoding: "utf8",
        timeout: 90_000,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory" },
      },
    );
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { result: Record<string, unknown> };
  }

  it("lists the server's tools through toolgate wrap, and a read-only call goes through", () => {
    const entry = mcpServersOf(file).memory as { args: string[] };
    expect(entry.args).toContain("wrap");
    const listed = inspector(["--method", "tools/list"]);
    const names = (listed.result.tools as Array<{ name: string }>).map((t) => t.name).sort();
    expect(names).toContain("read_graph");
    expect(names).toContain("create_entities");
    const called = inspector(["--method", "tools/call", "--tool-name", "read_graph"]);
    expect(called.result.isError).not.toBe(true);
    // The installed entry logs its decisions where install said, without anyone asking for it.
    const log = join(home, ".config/toolgate/audit/claude-desktop/memory.jsonl");
    expect(entry.args).toContain(log);
    const calls = readAudit(log).filter((e) => e.event === "tools/call");
    expect(calls.map((e) => `${String(e.tool)}:${String(e.decision)}`)).toEqual(["read_graph:allow"]);
  });
});
