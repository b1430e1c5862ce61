// toolgate install --dry-run predicts the install: it starts each server and reads its catalog as the
// install does, so a server that cannot start fails the dry run with the install's own messages and exit
// status, and a server that starts gets the policy the install then writes, byte for byte, while nothing is
// written. Installed entries log every decision under the toolgate directory: the entry's command line,
// exactly as the client file holds it, run by the official SDK client against the real server-memory,
// writes the log install named, `audit verify` and `policy suggest --from-audit` read it, and uninstall
// leaves it where it is and says so.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { CLI, connect, NODE, readAudit, tempDir } from "./helpers.js";
import { MEMORY_SERVER } from "./serveHelpers.js";

function toolgate(home: string, args: string[]) {
  return spawnSync(NODE, [CLI, ...args], {
    cwd: home,
    encoding: "utf8",
    timeout: 90_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  });
}

/** The error lines and their hints, as a person reads them. */
function errors(stderr: string): string[] {
  return stderr.split("\n").filter((l) => /^toolgate: error E_|^ {2}hint: /.test(l));
}

/** The text a unified diff of a new file adds: its `+` lines after the `@@` line. */
function addedText(diff: string, path: string): string {
  const from = diff.indexOf(`+++ ${path}`);
  expect(from, `a diff of ${path}`).toBeGreaterThanOrEqual(0);
  const lines = diff.slice(from).split("\n").slice(2);
  const end = lines.findIndex((l) => !l.startsWith("+"));
  return lines
    .slice(0, end)
    .map((l) => `${l.slice(1)}\n`)
    .join("");
}

/** Every file under `dir` with its bytes, to see that a run changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, name);
    out[name] = statSync(path).isFile() ? readFileSync(path, "utf8") : "(folder)";
  }
  return out;
}

describe("toolgate install --dry-run fails where the install fails", () => {
  it("servers that do not start: the same errors and exit status, and nothing written by either", () => {
    const home = tempDir("tg-dry-fails-");
    const file = join(home, "claude_desktop_config.json");
    // A command that is not there, and a server that says why and exits before it answers.
    const config = `${JSON.stringify(
      {
        mcpServers: {
          gone: { command: "/no/such/server" },
          quits: {
            command: "node",
            args: ["-e", "process.stderr.write('quits: no API key\\n'); process.exit(3)"],
          },
        },
      },
      null,
      2,
    )}\n`;
    writeFileSync(file, config);

    const dry = toolgate(home, ["install", "claude-desktop", "--config", file, "--dry-run"]);
    const real = toolgate(home, ["install", "claude-desktop", "--config", file]);
    expect(dry.status, dry.stderr).toBe(1);
    expect(real.status, real.stderr).toBe(1);
    expect(dry.stderr).toContain(
      `toolgate: error E_INSTALL_ENTRY: gone (${file}:3) is left as it is: its catalog could not be read`,
    );
    expect(dry.stderr).toContain("/no/such/server");
    expect(dry.stderr).toContain("quits: no API key");
    expect(dry.stderr).toContain(
      `toolgate: error E_INSTALL_ENTRY: quits (${file}:6) is left as it is: its catalog could not be read`,
    );
    expect(errors(dry.stderr)).toHaveLength(errors(real.stderr).length);
    expect(errors(dry.stderr)).toEqual(errors(real.stderr));
    expect(dry.stdout).toBe("");
    expect(dry.stderr).not.toContain("would write");
    expect(readFileSync(file, "utf8")).toBe(config);
    expect(existsSync(join(home, ".config"))).toBe(false);
  });

  it("an audit log folder that is a link is refused by both, before the client's file changes", () => {
    const home = tempDir("tg-dry-audit-link-");
    const file = join(home, "mcp.json");
    const config = `${JSON.stringify({ mcpServers: { memory: { command: "node", args: [MEMORY_SERVER] } } })}\n`;
    writeFileSync(file, config);
    const elsewhere = join(home, "elsewhere");
    mkdirSync(elsewhere);
    const audit = join(home, ".config", "toolgate", "audit");
    mkdirSync(audit, { recursive: true, mode: 0o700 });
    symlinkSync(elsewhere, join(audit, "cursor"));

    const dry = toolgate(home, ["install", "cursor", "--config", file, "--dry-run"]);
    const real = toolgate(home, ["install", "cursor", "--config", file]);
    for (const run of [dry, real]) {
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `toolgate: error E_INSTALL_WRITE: the audit log folder ${join(audit, "cursor")} is a symbolic link; installed entries log every decision there`,
      );
    }
    expect(errors(dry.stderr)).toEqual(errors(real.stderr));
    expect(dry.stdout).toBe("");
    expect(readFileSync(file, "utf8")).toBe(config);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(join(home, ".config", "toolgate", "policies"))).toBe(false);
  });
});

describe("toolgate install: the dry run shows what it writes, and every installed entry keeps an audit log", () => {
  const home = tempDir("tg-install-audit-");
  const file = join(home, "claude_desktop_config.json");
  const memoryFile = join(home, "memory.jsonl");
  const config = `${JSON.stringify(
    {
      mcpServers: {
        memory: { command: "node", args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
      },
    },
    null,
    2,
  )}\n`;
  const toolgateDir = join(home, ".config", "toolgate");
  const policy = join(toolgateDir, "policies", "claude-desktop", "memory.yaml");
  const log = join(toolgateDir, "audit", "claude-desktop", "memory.jsonl");
  let dryPolicy = "";
  let dryDiff = "";

  it("the dry run starts the server, prints the policy and the edit it would write, and writes nothing", () => {
    writeFileSync(file, config);
    const before = statSync(file).mtimeMs;
    const dry = toolgate(home, ["install", "claude-desktop", "--config", file, "--dry-run"]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      `toolgate: memory: would write a starter policy to ${policy}, from its live catalog\n`,
    );
    expect(dry.stderr).toContain(`toolgate: memory: would log every decision to ${log}\n`);
    expect(dry.stderr).toContain(`dry run: nothing was written; ${file} is unchanged`);
    dryPolicy = addedText(dry.stdout, policy);
    // Read from the live catalog: server-memory's own tools, pinned.
    expect(dryPolicy).toContain("memory-server");
    expect(dryPolicy).toContain('tool_name: "read_graph"');
    dryDiff = dry.stdout.slice(dry.stdout.indexOf(`+++ ${file}`));
    expect(dryDiff).toContain(`"--audit-log",\n+        ${JSON.stringify(log)},`);
    expect(readFileSync(file, "utf8")).toBe(config);
    expect(statSync(file).mtimeMs).toBe(before);
    expect(existsSync(join(home, ".config"))).toBe(false);
  }, 90_000);

  it("the install writes what the dry run showed, and names the audit log", () => {
    const run = toolgate(home, ["install", "claude-desktop", "--config", file]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`toolgate: memory: logs every decision to ${log}\n`);
    expect(run.stderr).toContain(`toolgate policy suggest --from-audit ${log}`);
    expect(readFileSync(policy, "utf8")).toBe(dryPolicy);
    const entry = (JSON.parse(readFileSync(file, "utf8")) as { mcpServers: { memory: { args: string[] } } })
      .mcpServers.memory;
    expect(entry.args.slice(1, 7)).toEqual(["wrap", "--policy", policy, "--audit-log", log, "--"]);
    for (const added of dryDiff.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++"))) {
      expect(readFileSync(file, "utf8")).toContain(`${added.slice(1)}\n`);
    }
    // The folder is private before any log is in it; wrap makes each log 0600.
    expect(statSync(join(toolgateDir, "audit")).mode & 0o777).toBe(0o700);
    expect(statSync(join(toolgateDir, "audit", "claude-desktop")).mode & 0o777).toBe(0o700);
    expect(existsSync(log)).toBe(false);
    // A dry run now finds the policy there and keeps it: nothing under the toolgate directory changes.
    const kept = snapshot(toolgateDir);
    const again = toolgate(home, ["install", "claude-desktop", "--config", file, "--dry-run"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain("memory: left as it is: it already runs through toolgate wrap");
    expect(snapshot(toolgateDir)).toEqual(kept);
  }, 90_000);

  it("the installed command line, run by an MCP client, logs to that file; audit verify and policy suggest read it", async () => {
    const entry = (
      JSON.parse(readFileSync(file, "utf8")) as {
        mcpServers: { memory: { command: string; args: string[]; env: Record<string, string> } };
      }
    ).mcpServers.memory;
    const c = await connect({ command: entry.command, args: entry.args, env: entry.env });
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("read_graph");
      await c.client.callTool({ name: "read_graph", arguments: {} });
      await c.client.callTool({ name: "search_nodes", arguments: { query: "Ada" } });
    } finally {
      await c.close();
    }
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const calls = readAudit(log)
      .filter((e) => e.event === "tools/call")
      .map((e) => `${String(e.tool)}:${String(e.decision)}`);
    expect(calls).toEqual(["read_graph:allow", "search_nodes:allow"]);

    const verified = toolgate(home, ["audit", "verify", log]);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    const suggested = toolgate(home, ["policy", "suggest", "--from-audit", log]);
    expect(suggested.status, suggested.stderr).toBe(0);
    expect(suggested.stderr).toContain("chain verified (");
    expect((parse(suggested.stdout) as { tools: { allow: string[] } }).tools.allow).toEqual([
      "read_graph",
      "search_nodes",
    ]);
  }, 90_000);

  it("uninstall leaves the audit log where it is, and says where", () => {
    const before = readFileSync(log, "utf8");
    const undone = toolgate(home, ["uninstall", "claude-desktop", "--config", file]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(undone.stderr).toContain(
      `toolgate: the audit logs stay, as the record of what the servers were asked (${log})`,
    );
    expect(readFileSync(file, "utf8")).toBe(config);
    expect(readFileSync(log, "utf8")).toBe(before);
  });
});
