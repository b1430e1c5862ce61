// The messages a new user meets first, each saying what is wrong and what to do: a configuration directory
// that does not exist, a list where nothing is enabled, a relative policy path that does not resolve, a
// server command a host's PATH does not have.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { tempDir } from "./helpers.js";

describe("messages that say what to do", () => {
  it("a configuration directory that does not exist is named as such, with how to make one", async () => {
    const missing = join(tempDir("tg-msg-"), "no-such-dir");
    const run = await runCli(["list", "--config-dir", missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `error E_CONFIG_NOT_FOUND no configuration directory ${missing}: no such directory`,
    );
    expect(run.stderr).toContain("create it with an mcp.json");
    expect(run.stderr).not.toContain("no mcp.json in");
  });

  it("list with nothing enabled says so, naming config.yaml and enabled_mcp_servers", async () => {
    const dir = configDir({ "mcp.json": mcpJson({ github: { command: "x" }, slack: { command: "y" } }) });
    const run = await runCli(["list", "--config-dir", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("✗ github");
    expect(run.stderr).toContain(
      `set \`enabled_mcp_servers: [github]\` (or \`all\`) in ${join(dir, "config.yaml")}`,
    );
  });

  it("a relative --policy that does not resolve is reported with the absolute path tried", async () => {
    const cwd = tempDir("tg-msg-");
    const run = await runCli(["policy", "validate", "--input", "rel/missing.yaml"], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `cannot read policy file 'rel/missing.yaml' (${join(cwd, "rel/missing.yaml")})`,
    );
  });

  it("a server command the PATH does not have: the PATH searched and the way out", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ gone: { command: "tg-no-such-command-xyz" } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["info", "gone", "--config-dir", dir]);
    // info exits 1 when a server cannot be reached (its documented status), with the reason.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'tg-no-such-command-xyz' was not found (spawn ENOENT) on PATH=");
    expect(run.stderr).toContain("give the command's absolute path");
  });
});
