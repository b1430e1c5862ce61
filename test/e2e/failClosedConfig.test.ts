// Configuration that could silently allow everything is applied or refused, on every command that reads
// it: a role header after a byte-order mark or blank lines, closed by `...`, is applied; one never closed
// is an error naming the file; a --session that does not exist is an error, like a mistyped --role.
import { describe, expect, it } from "vitest";
import { catalogEntry, configDir, mcpJson, runCli } from "./configDirHelpers.js";

const world = (role: string): string =>
  configDir({
    "mcp.json": mcpJson({ srv: catalogEntry(["get_a", "put_b"]) }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "roles/reader.md": role,
  });

describe("role headers as editors save them", () => {
  it.each([
    ["a byte-order mark", "\uFEFF---\nmcp_tools:\n  srv: get_*\n---\n"],
    ["blank lines first", "\n\n---\nmcp_tools:\n  srv: get_*\n---\n"],
    ["'...' as the closer", "---\nmcp_tools:\n  srv: get_*\n...\n"],
  ])("with %s: the role's layer applies (info)", async (_, role) => {
    const run = await runCli(["info", "srv", "--config-dir", world(role), "--role", "reader"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ get_a/);
    expect(run.stdout).toMatch(/✗ put_b +hidden by role layer/);
  });

  it.each([
    ["info", ["info", "srv"]],
    ["serve", ["serve", "--stdio"]],
    ["wrap", ["wrap", "--server", "srv"]],
  ])("never closed: %s refuses to start, naming the file and line", async (_, args) => {
    const dir = world("\uFEFF---\nmcp_tools:\n  srv: get_*\n# the closer is missing\n");
    const run = await runCli([...args, "--config-dir", dir, "--role", "reader"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/roles\/reader\.md:1:1: error E_FRONT_MATTER/);
  });
});

describe("a --session that does not exist", () => {
  it.each([
    ["info", ["info", "srv"]],
    ["serve", ["serve", "--stdio"]],
    ["wrap", ["wrap", "--server", "srv"]],
  ])("%s refuses it like a mistyped role", async (_, args) => {
    const run = await runCli([...args, "--config-dir", world("---\n---\n"), "--session", "tyop"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("E_CONFIG_NOT_FOUND");
    expect(run.stderr).toContain("no session 'tyop'");
  });

  it("the console starts it as a new session and says so", async () => {
    const run = await runCli(["console", "--config-dir", world("---\n---\n"), "--session", "fresh"], {
      input: ".exit\n",
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("session 'fresh' is new");
  });
});
