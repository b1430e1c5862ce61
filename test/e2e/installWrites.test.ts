// How toolgate install and uninstall write, tried as someone who can write the client's directory would:
// links planted at every temporary name the old scheme (`.<file>.toolgate-<pid>.tmp`) could use, and at a
// starter policy's path, are never written through; a client file kept in a dotfiles folder and linked
// into place is edited where the link points, and the link stays a link; links that lead nowhere, and
// files that cannot be written, are refused with a code and nothing changes. The server is real
// (server-memory); its catalog gives the starter policy.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";

const MEMORY_SERVER = join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const CONFIG = `{\n  "mcpServers": {\n    "memory": { "command": "node", "args": [${JSON.stringify(MEMORY_SERVER)}] }\n  }\n}\n`;
/** How many pids after the last one handed out get a planted link each: the CLI's pid is among them. */
const PID_SPAN = 3000;

function toolgate(home: string, args: string[]) {
  return spawnSync(NODE, [CLI, ...args], {
    cwd: home,
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  });
}

/** `.<name>.toolgate-<pid>.tmp` in `dir` for the next PID_SPAN pids, each a link to a victim that does not exist yet. */
function plantPidNames(dir: string, name: string, victims: string): string[] {
  const first = spawnSync("true").pid ?? 1;
  const planted: string[] = [];
  for (let pid = first; pid < first + PID_SPAN; pid += 1) {
    const path = join(dir, `.${name}.toolgate-${pid}.tmp`);
    symlinkSync(join(victims, `${name}-${pid}`), path);
    planted.push(path);
  }
  return planted;
}

function linksIntact(planted: readonly string[], victims: string): void {
  expect(readdirSync(victims)).toEqual([]);
  for (const path of planted) {
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path).startsWith(victims)).toBe(true);
  }
}

describe("toolgate install writes through random, exclusively created temporary files", () => {
  it("links planted at every pid-named temporary path are not written through, by install or uninstall", () => {
    const home = tempDir("tg-install-planted-");
    const victims = join(home, "victims");
    mkdirSync(victims);
    mkdirSync(join(home, ".cursor"));
    const file = join(home, ".cursor", "mcp.json");
    writeFileSync(file, CONFIG, { mode: 0o600 });
    // The record and the copy of the original, under the toolgate directory, have predictable names too.
    const install = join(home, ".config", "toolgate", "install");
    mkdirSync(install, { recursive: true, mode: 0o700 });
    const base = `cursor-${createHash("sha256").update(file).digest("hex").slice(0, 16)}`;
    const planted = [
      ...plantPidNames(join(home, ".cursor"), "mcp.json", victims),
      ...plantPidNames(install, `${base}.json`, victims),
      ...plantPidNames(install, `${base}.original`, victims),
    ];

    const run = toolgate(home, ["install", "cursor"]);
    expect(run.status, run.stderr).toBe(0);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain(`"command": ${JSON.stringify(NODE)}`);
    expect(readFileSync(join(install, `${base}.original`), "utf8")).toBe(CONFIG);
    linksIntact(planted, victims);
    // Nothing but the planted names and the files themselves: every temporary file was renamed away.
    expect(readdirSync(join(home, ".cursor")).filter((n) => !n.startsWith(".mcp.json.toolgate-"))).toEqual([
      "mcp.json",
    ]);
    expect(readdirSync(join(home, ".cursor"))).toHaveLength(PID_SPAN + 1);

    const undone = toolgate(home, ["uninstall", "cursor"]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(CONFIG);
    expect(lstatSync(file).isFile()).toBe(true);
    linksIntact(planted, victims);
  });

  it("a link planted at a starter policy's path is not written through: the entry is left, and says why", () => {
    const home = tempDir("tg-install-policy-link-");
    const file = join(home, "mcp.json");
    writeFileSync(file, CONFIG);
    const policies = join(home, ".config", "toolgate", "policies", "cursor");
    mkdirSync(policies, { recursive: true });
    const victim = join(home, "victim.txt");
    symlinkSync(victim, join(policies, "memory.yaml"));
    const run = toolgate(home, ["install", "cursor", "--config", file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      `error E_INSTALL_ENTRY: memory (${file}:3) is left as it is: its policy path ${join(policies, "memory.yaml")} is a symbolic link to a file that does not exist`,
    );
    expect(existsSync(victim)).toBe(false);
    expect(readlinkSync(join(policies, "memory.yaml"))).toBe(victim);
    expect(readFileSync(file, "utf8")).toBe(CONFIG);
  });
});

describe("toolgate install on a client file that is a symbolic link", () => {
  it("edits the file the link points to, keeps the link, and uninstall restores that file", () => {
    const home = tempDir("tg-install-link-");
    mkdirSync(join(home, "dotfiles"));
    mkdirSync(join(home, ".cursor"));
    const real = join(home, "dotfiles", "cursor-mcp.json");
    writeFileSync(real, CONFIG, { mode: 0o600 });
    const link = join(home, ".cursor", "mcp.json");
    symlinkSync("../dotfiles/cursor-mcp.json", link);

    const run = toolgate(home, ["install", "cursor"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `toolgate: ${link} is a symbolic link: editing the file it points to, ${realpathSync(real)}`,
    );
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("../dotfiles/cursor-mcp.json");
    const installed = readFileSync(real, "utf8");
    expect(installed).toContain(join(home, ".config/toolgate/policies/cursor/memory.yaml"));
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(home, ".cursor"))).toEqual(["mcp.json"]);
    expect(readdirSync(join(home, "dotfiles"))).toEqual(["cursor-mcp.json"]);
    // The record is the edited file's: its path, the link it was reached through, its original bytes.
    const records = readdirSync(join(home, ".config/toolgate/install")).filter((n) => n.endsWith(".json"));
    expect(records).toHaveLength(1);
    const record = JSON.parse(readFileSync(join(home, ".config/toolgate/install", records[0]!), "utf8"));
    expect([record.file, record.link, record.originalText]).toEqual([realpathSync(real), link, CONFIG]);

    // A second install through the link changes nothing; uninstall through the file itself finds the record.
    expect(toolgate(home, ["install", "cursor"]).status).toBe(0);
    expect(readFileSync(real, "utf8")).toBe(installed);
    const undone = toolgate(home, ["uninstall", "cursor", "--config", real]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(undone.stderr).toContain("back as it was before toolgate install, byte for byte");
    expect(readFileSync(real, "utf8")).toBe(CONFIG);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("../dotfiles/cursor-mcp.json");
  });

  it("uninstall through the link restores the file it points to, and the link stays", () => {
    const home = tempDir("tg-uninstall-link-");
    const real = join(home, "claude_desktop_config.json");
    writeFileSync(real, CONFIG);
    const link = join(home, "linked.json");
    symlinkSync(real, link);
    expect(toolgate(home, ["install", "claude-desktop", "--config", link]).status).toBe(0);
    const undone = toolgate(home, ["uninstall", "claude-desktop", "--config", link]);
    expect(undone.status, undone.stderr).toBe(0);
    expect(undone.stderr).toContain(`${link} is a symbolic link: restoring the file it points to`);
    expect(readFileSync(real, "utf8")).toBe(CONFIG);
    expect(readlinkSync(link)).toBe(real);
  });

  it("refuses a link that leads nowhere, or to something that is not a file, and writes nothing", () => {
    const home = tempDir("tg-install-bad-link-");
    const dangling = join(home, "dangling.json");
    symlinkSync(join(home, "dotfiles", "gone.json"), dangling);
    for (const command of ["install", "uninstall"]) {
      const run = toolgate(home, [command, "cursor", "--config", dangling]);
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(
        `toolgate: error E_INSTALL_LINK: ${dangling} is a symbolic link to ${join(home, "dotfiles", "gone.json")}, which does not exist; toolgate edits the file a link points to, and does not replace the link\n` +
          "  hint: point the link at the client's file (or remove the link and let the client write its file), then run the command again\n",
      );
      expect(readlinkSync(dangling)).toBe(join(home, "dotfiles", "gone.json"));
      expect(existsSync(join(home, "dotfiles"))).toBe(false);
    }
    mkdirSync(join(home, "folder"));
    symlinkSync("folder", join(home, "folder.json"));
    const folder = toolgate(home, ["install", "cursor", "--config", join(home, "folder.json")]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain("error E_INSTALL_LINK:");
    expect(folder.stderr).toContain("which is not a regular file");
    expect(existsSync(join(home, ".config"))).toBe(false);
  });

  it("an install record that cannot be written stops install before the client's file changes", () => {
    const home = tempDir("tg-install-record-");
    const file = join(home, "mcp.json");
    writeFileSync(file, CONFIG);
    mkdirSync(join(home, ".config", "toolgate"), { recursive: true });
    writeFileSync(join(home, ".config", "toolgate", "install"), "a file where the records' folder goes");
    const run = toolgate(home, ["install", "cursor", "--config", file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /toolgate: error E_INSTALL_WRITE: cannot write the install record \S+\.json: .*; \S+mcp\.json is unchanged\n/,
    );
    expect(readFileSync(file, "utf8")).toBe(CONFIG);
  });

  // Root writes anywhere, so a directory it cannot write exists only for other users.
  it.skipIf(process.getuid?.() === 0)(
    "refuses a link into a directory it cannot write, before it starts any server",
    () => {
      const home = tempDir("tg-install-readonly-");
      const store = join(home, "store");
      mkdirSync(store);
      writeFileSync(join(store, "mcp.json"), CONFIG);
      chmodSync(store, 0o555);
      symlinkSync(join(store, "mcp.json"), join(home, "mcp.json"));
      try {
        const run = toolgate(home, ["install", "cursor", "--config", join(home, "mcp.json")]);
        expect(run.status).toBe(2);
        expect(run.stderr).toContain(
          `error E_INSTALL_WRITE: ${join(home, "mcp.json")} is a symbolic link to ${realpathSync(join(store, "mcp.json"))}, and toolgate cannot write in`,
        );
        expect(run.stderr).not.toContain("starter policy");
        expect(readFileSync(join(store, "mcp.json"), "utf8")).toBe(CONFIG);
        // The dry run checks the same and fails the same way: it predicts the install.
        const dry = toolgate(home, ["install", "cursor", "--config", join(home, "mcp.json"), "--dry-run"]);
        expect([dry.status, dry.stderr]).toEqual([2, run.stderr]);
      } finally {
        chmodSync(store, 0o755);
      }
    },
  );
});
