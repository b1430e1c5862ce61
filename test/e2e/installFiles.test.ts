// toolgate install / uninstall on configuration files as users keep them: JSONC with comments kept byte for
// byte, VS Code's "servers", entries it must refuse (and why), bad files, and uninstall after the host or a
// person changed the file. The servers are real (server-memory); the policies come from their catalogs.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";

const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

function toolgate(home: string, args: string[]) {
  return spawnSync(NODE, [CLI, ...args], {
    cwd: home,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  });
}

const CURSOR = `{
  // my servers
  "mcpServers": {
    /* the knowledge graph */
    "memory": {
      "command": "node",
      "args": [${JSON.stringify(MEMORY_SERVER)}],
      "env": { "MEMORY_FILE_PATH": "/tmp/tg-install-files-memory.json" }, // kept
    },
    "commented": { "command": "node", "args": [${JSON.stringify(MEMORY_SERVER)} /* here */] },
    "templated": { "command": "node", "args": ["\${workspaceFolder}/server.js"] },
    "remote": { "url": "http://127.0.0.1:9/mcp" },
  },
}
`;

describe("toolgate install on JSONC and VS Code files", () => {
  it("wraps what it can, keeps every comment, refuses what it would damage, and uninstall restores the bytes", () => {
    const home = tempDir("tg-install-files-");
    const file = join(home, ".cursor", "mcp.json");
    spawnSync("mkdir", ["-p", join(home, ".cursor")]);
    writeFileSync(file, CURSOR);

    const run = toolgate(home, ["install", "cursor"]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      'error E_INSTALL_ENTRY: commented (mcpServers, line 10) is left as it is: a comment inside its "args" would be lost',
    );
    expect(run.stderr).toContain(
      "error E_INSTALL_ENTRY: templated (mcpServers, line 11) is left as it is: it uses ${…} variables",
    );
    expect(run.stderr).toContain("remote: left as it is: a remote server (url)");
    const after = readFileSync(file, "utf8");
    for (const kept of [
      "// my servers",
      "/* the knowledge graph */",
      "// kept",
      "/* here */",
      '"remote": { "url"',
    ]) {
      expect(after).toContain(kept);
    }
    expect(after).toContain(`"command": ${JSON.stringify(NODE)}`);
    expect(after).toContain(join(home, ".config/toolgate/policies/cursor/memory.yaml"));

    const undone = toolgate(home, ["uninstall", "cursor"]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(undone.stderr).toContain("back as it was before toolgate install, byte for byte");
    expect(readFileSync(file, "utf8")).toBe(CURSOR);
    expect(existsSync(join(home, ".config/toolgate/policies/cursor/memory.yaml"))).toBe(true);
  });

  it("reads VS Code's servers, and puts entries back one by one when the file changed since", () => {
    const home = tempDir("tg-install-vscode-");
    const file = join(home, "mcp.json");
    const original = `{\n\t"servers": {\n\t\t"memory": { "type": "stdio", "command": "node", "args": [${JSON.stringify(MEMORY_SERVER)}] }\n\t},\n\t"inputs": []\n}\n`;
    writeFileSync(file, original);
    const dry = toolgate(home, ["install", "vscode", "--config", file, "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^\+\t\t"memory": \{ "type": "stdio", "command": "\S+", "args": \["\S+", "wrap", "--policy", /m,
    );
    expect(readFileSync(file, "utf8")).toBe(original);

    expect(toolgate(home, ["install", "vscode", "--config", file]).status).toBe(0);
    // Someone adds a server after install: uninstall keeps it and restores only what install changed.
    const edited = readFileSync(file, "utf8").replace(
      '"inputs": []',
      '"inputs": [{ "id": "k", "type": "promptString" }]',
    );
    writeFileSync(file, edited);
    const undone = toolgate(home, ["uninstall", "vscode", "--config", file]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(undone.stderr).toContain("put back 1 server entry");
    expect(readFileSync(file, "utf8")).toBe(
      original.replace('"inputs": []', '"inputs": [{ "id": "k", "type": "promptString" }]'),
    );
  }, 120_000);

  it("leaves an entry a person changed after install, says so, and keeps the record for it", () => {
    const home = tempDir("tg-install-changed-");
    const file = join(home, "claude_desktop_config.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { memory: { command: "node", args: [MEMORY_SERVER] } } }, null, 2),
    );
    expect(toolgate(home, ["install", "claude-desktop", "--config", file]).status).toBe(0);
    const config = JSON.parse(readFileSync(file, "utf8")) as { mcpServers: { memory: { args: string[] } } };
    config.mcpServers.memory.args.push("--verbose");
    writeFileSync(file, JSON.stringify(config, null, 2));
    const undone = toolgate(home, ["uninstall", "claude-desktop", "--config", file]);
    expect(undone.status).toBe(1);
    expect(undone.stderr).toContain(
      "error E_INSTALL_ENTRY: memory (line 3) changed since toolgate install; left as it is",
    );
    expect(undone.stderr).toContain(
      `its command line before install was {"command":"node","args":[${JSON.stringify(MEMORY_SERVER)}]}`,
    );
  });

  it("a server that does not start is left as it was, with the reason; bad input exits 2", () => {
    const home = tempDir("tg-install-bad-");
    const file = join(home, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { gone: { command: "/no/such/server" } } }));
    const run = toolgate(home, ["install", "cursor", "--config", file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error E_INSTALL_ENTRY: gone");
    expect(run.stderr).toContain("its catalog could not be read");
    expect(run.stderr).toContain("/no/such/server");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      mcpServers: { gone: { command: "/no/such/server" } },
    });

    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n');
    const broken = toolgate(home, ["install", "cursor", "--config", file]);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain(`${file}:3:28: error E_SYNTAX expected ',' after this member`);

    const unknown = toolgate(home, ["install", "zed"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("error E_USAGE: unknown client 'zed'");
    expect(unknown.stderr).toContain("hint: choose one of: claude-code, claude-desktop, cursor, vscode");

    const missing = toolgate(home, ["install", "claude-code"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(
      `error E_USAGE: no Claude Code configuration at ${join(home, ".claude.json")}`,
    );
  });
});
