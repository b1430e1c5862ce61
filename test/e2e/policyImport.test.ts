// `toolgate policy import` through the built CLI: the policy on stdout (or in --output), the report and
// the summary on stderr, exit 0 when everything was carried over, 1 when something was not, 2 for bad
// input (with file:line:col for a parse error), and an existing --output kept unless --force.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../src/config/policyLoader.js";
import { runCli } from "./configDirHelpers.js";
import { connect, NODE, outcome, ROOT, tempDir, wrapCommand } from "./helpers.js";

const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

const FIXTURES = join(ROOT, "test/unit/cli/fixtures/import");
const dir = tempDir("tg-import-");
for (const name of [
  "claude-lossy.json",
  "claude-server-wide.json",
  "codex-config.toml",
  "team.toolsets.jsonc",
]) {
  copyFileSync(join(FIXTURES, name), join(dir, name));
}
const run = (args: string[]) => runCli(["policy", "import", ...args], { cwd: dir });

function loads(yaml: string): void {
  const { policy, diagnostics } = loadPolicyText("imported.yaml", yaml);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  expect(policy?.sourceVersion).toBe("2.0");
}

describe("toolgate policy import", () => {
  it("exit 0: everything carried; the policy alone on stdout, the summary on stderr", async () => {
    const r = await run(["--from", "claude-code", "claude-server-wide.json", "--server", "github"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^# toolgate policy import --from claude-code: server "github", from claude-server-wide\.json\.\n/,
    );
    loads(r.stdout);
    expect(r.stderr).toBe(
      "toolgate: ignored 3 entries about other tools or servers: Edit, Bash(git status), mcp__slack__post_message\n",
    );
  });

  it("exit 1: the policy is still written; each item not carried is on stderr with file:line:col", async () => {
    const r = await run(["--from", "claude-code", "claude-lossy.json", "--server", "github"]);
    expect(r.code).toBe(1);
    loads(r.stdout);
    const lines = r.stderr.split("\n");
    expect(lines[0]).toBe(
      "toolgate: 5 items could not be carried over exactly (the policy keeps the stricter reading):",
    );
    expect(lines[1]).toMatch(
      /^ {2}claude-lossy\.json:13:39: deny rule "mcp__github__get_\*_blob": .*carried as "get_\*"/,
    );
    expect(lines[4]).toMatch(
      /^ {2}claude-lossy\.json:8:7: allow rule "mcp__github__search_code\(query:\*\)": /,
    );
    expect(lines[5]).toMatch(/^ {2}claude-lossy\.json: tools no rule matches: Claude Code asks/);
    expect(r.stdout).not.toContain("toolgate:");
  });

  it("--output writes the file, keeps an existing one, and replaces it with --force", async () => {
    const out = join(dir, "imported.yaml");
    const args = ["--from", "codex", "codex-config.toml", "--server", "github", "--output", out];
    const first = await run(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("");
    expect(first.stderr).toBe(
      `toolgate: wrote the imported policy to ${out}; review it before you rely on it\n`,
    );
    loads(readFileSync(out, "utf8"));
    writeFileSync(out, "# mine\n");
    const again = await run(args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`error E_USAGE: '${out}' exists; toolgate policy import keeps it`);
    expect(readFileSync(out, "utf8")).toBe("# mine\n");
    const forced = await run([...args, "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("name: github (imported from codex)");
  });

  it("exit 2: a parse error names file:line:col", async () => {
    writeFileSync(
      join(dir, "broken.toml"),
      '[mcp_servers.fs]\ncommand = "node"\nenabled_tools = ["a" "b"]\n',
    );
    const toml = await run(["--from", "codex", "broken.toml"]);
    expect(toml.code).toBe(2);
    expect(toml.stdout).toBe("");
    expect(toml.stderr).toMatch(/^toolgate: error E_USAGE: broken\.toml:3:\d+: .*\(not valid TOML\)\n$/);

    writeFileSync(join(dir, "broken.json"), '{\n  "permissions": {\n    "allow": ["mcp__a__x",]\n  }\n}\n');
    const json = await run(["--from", "claude-code", "broken.json"]);
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(
      /^toolgate: error E_USAGE: broken\.json:3:27: .*where a value was expected\n {2}hint: Claude Code settings are strict JSON/,
    );
  });

  it("exit 2: several servers and no --server lists them; an unknown --server too", async () => {
    const several = await run(["--from", "codex", "codex-config.toml"]);
    expect(several.code).toBe(2);
    expect(several.stderr).toBe(
      "toolgate: error E_USAGE: codex-config.toml: the file names 3 MCP servers; choose one with --server\n" +
        "  hint: servers found: github, fs, off\n",
    );
    const unknown = await run(["--from", "vscode", "team.toolsets.jsonc", "--server", "slack"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("nothing in the file is about server 'slack'");
    expect(unknown.stderr).toContain("hint: servers found: github, memory");
  });

  it("exit 2: an unknown --from and an unreadable file", async () => {
    const from = await run(["--from", "cursor", "x.json"]);
    expect(from.code).toBe(2);
    expect(from.stderr).toBe(
      "toolgate: error E_USAGE: unknown --from 'cursor'\n  hint: choose one of: claude-code, gemini, codex, vscode\n",
    );
    const missing = await run(["--from", "gemini", "missing.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^toolgate: error E_USAGE: cannot read 'missing\.json': ENOENT/);
  });

  describe("claude-code: a server a setting switches off is skipped, naming the setting", () => {
    const settings = (extra: Record<string, unknown>) => {
      const name = `switched-${Object.keys(extra).join("-")}.json`;
      writeFileSync(
        join(dir, name),
        JSON.stringify({ permissions: { allow: ["mcp__memory"] }, ...extra }, null, 2),
      );
      return name;
    };

    it("deniedMcpServers names it: exit 0, allow: [], and a wrapped real server runs none of its tools", async () => {
      const name = settings({ deniedMcpServers: [{ serverName: "memory" }] });
      const out = join(dir, "memory-denied.yaml");
      const r = await run(["--from", "claude-code", name, "--output", out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(
        `toolgate: wrote the imported policy to ${out}; review it before you rely on it\n` +
          `toolgate: server "memory" skipped: switched off by deniedMcpServers {"serverName":"memory"} (line 8); the policy allows nothing\n`,
      );
      const yaml = readFileSync(out, "utf8");
      loads(yaml);
      expect(yaml).toContain("  allow: []");

      // The same rules without the setting allow the tools: the setting is what closes the server.
      const open = join(dir, "memory-open.yaml");
      expect((await run(["--from", "claude-code", settings({}), "--output", open])).code).toBe(0);
      for (const [policy, allowed] of [
        [out, false],
        [open, true],
      ] as const) {
        const wrapped = await connect(wrapCommand(["--policy", policy], [NODE, MEMORY_SERVER]));
        try {
          const tools = await wrapped.client.listTools();
          expect(tools.tools.some((t) => t.name === "read_graph")).toBe(allowed);
          const call = await outcome(wrapped.client.callTool({ name: "read_graph", arguments: {} }));
          expect("result" in call && (call.result as { isError?: boolean }).isError !== true).toBe(allowed);
        } finally {
          await wrapped.close();
        }
      }
    });

    it("disabledMcpjsonServers names it: exit 1, allow: [], and the report says why it is the stricter reading", async () => {
      const r = await run([
        "--from",
        "claude-code",
        settings({ disabledMcpjsonServers: ["memory"], enabledMcpjsonServers: ["memory"] }),
      ]);
      expect(r.code).toBe(1);
      loads(r.stdout);
      expect(r.stdout).toContain("  allow: []");
      expect(r.stdout).toContain("# The server may be switched off by disabledMcpjsonServers (line 8)");
      const lines = r.stderr.split("\n");
      expect(lines[0]).toBe(
        'toolgate: server "memory" skipped: perhaps switched off by disabledMcpjsonServers (line 8); the policy allows nothing',
      );
      expect(lines[2]).toMatch(
        /^ {2}switched-disabledMcpjsonServers-enabledMcpjsonServers\.json:8:5: disabledMcpjsonServers "memory": Claude Code applies it only to a server defined in a project's \.mcp\.json/,
      );
    });

    it("allowedMcpServers without it, and a deniedMcpServers entry of another server", async () => {
      const off = await run([
        "--from",
        "claude-code",
        settings({ allowedMcpServers: [{ serverName: "github" }] }),
      ]);
      expect(off.code).toBe(0);
      expect(off.stdout).toContain("  allow: []");
      expect(off.stderr).toContain(
        'toolgate: server "memory" skipped: switched off by allowedMcpServers, which does not name it (line 7)',
      );
      const on = await run([
        "--from",
        "claude-code",
        settings({ deniedMcpServers: [{ serverName: "github" }] }),
      ]);
      expect(on.code).toBe(0);
      expect(on.stdout).not.toContain("allow: []");
      expect(on.stderr).toBe("");
    });
  });
});
