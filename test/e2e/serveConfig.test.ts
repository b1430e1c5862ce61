// toolgate serve refuses to start on bad configuration: every diagnostic with file:line on stderr, exit 2.
import { describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { NODE } from "./helpers.js";
import { MEMORY_SERVER, serveWorld } from "./serveHelpers.js";

const memory = { command: NODE, args: [MEMORY_SERVER] };

describe("serve: configuration errors are start-up errors", () => {
  it("reports a broken mcp.json with file and line", async () => {
    const dir = configDir({
      "mcp.json":
        '{\n  "mcpServers": {\n    "bad__name": { "command": "x" },\n    "ok": { "type": "ftp", "url": "x" }\n  }\n}\n',
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["serve", "--config-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/mcp\.json:3:5: error E_SERVER_NAME .*must not contain '__'/);
    expect(run.stderr).toMatch(/mcp\.json:4:\d+: error E_MCP_SERVER .*"type" of server 'ok'/);
  });

  it("says how to enable a server when none is enabled", async () => {
    const dir = configDir({ "mcp.json": mcpJson({ memory }) });
    const run = await runCli(["serve", "--config-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "error E_NO_SERVER_ENABLED no MCP server is enabled for stdio: set enabled_mcp_servers in config.yaml (a list of server names, or 'all'), or in the selected role, agent or skill",
    );
  });

  it("refuses a role that does not exist", async () => {
    const world = serveWorld();
    const run = await runCli(["serve", "--config-dir", world.dir, "--role", "ghost"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no role 'ghost'");
  });

  it("refuses a tokens file with a typo, or naming a context that does not exist", async () => {
    const world = serveWorld({
      files: {
        "typo.yaml": "- token: aaaaaaaaaaaaaaaaaaaa\n  rol: reviewer\n",
        "ghost.yaml": "- token: aaaaaaaaaaaaaaaaaaaa\n  role: ghost\n",
      },
    });
    const typo = await runCli([
      "serve",
      "--config-dir",
      world.dir,
      "--http",
      "0",
      "--tokens",
      `${world.dir}/typo.yaml`,
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/typo\.yaml:2:3: error E_TOKENS_FIELD \[0\]\.rol: unknown field 'rol'/);
    const ghost = await runCli([
      "serve",
      "--config-dir",
      world.dir,
      "--http",
      "0",
      "--tokens",
      `${world.dir}/ghost.yaml`,
    ]);
    expect(ghost.code).toBe(2);
    expect(ghost.stderr).toContain("no role 'ghost'");
  });

  it("refuses context flags next to --tokens, and HTTP flags without --http", async () => {
    const world = serveWorld({ files: { "t.yaml": "- token: aaaaaaaaaaaaaaaaaaaa\n" } });
    const mixed = await runCli([
      "serve",
      "--config-dir",
      world.dir,
      "--http",
      "0",
      "--tokens",
      `${world.dir}/t.yaml`,
      "--role",
      "r",
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("with --tokens each token carries its own context");
    const stdio = await runCli(["serve", "--config-dir", world.dir, "--token", "aaaaaaaaaaaaaaaaaaaa"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--token applies to --http only");
  });

  it("refuses a policy file with errors", async () => {
    const world = serveWorld({ files: { "bad-policy.yaml": 'version: "2.0"\ntools:\n  allow: 42\n' } });
    const run = await runCli([
      "serve",
      "--config-dir",
      world.dir,
      "--policy",
      `${world.dir}/bad-policy.yaml`,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad-policy\.yaml:3:\d+: error/);
  });

  it("exits 0 when the stdio client goes away", async () => {
    const world = serveWorld();
    const run = await runCli(["serve", "--config-dir", world.dir], { input: "" });
    expect(run.code).toBe(0);
  });
});
