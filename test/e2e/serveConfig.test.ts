// toolgate serve refuses to start on bad configuration: every diagnostic with file:line on stderr, exit 2.
import { join } from "node:path";
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

describe("serve: a state store it cannot use is a start-up error", () => {
  const TOKEN = "state-e2e-token-0123456789abcdef";
  const serveHttpWith = (dir: string, extra: string[], env: Record<string, string> = {}) =>
    runCli(["serve", "--config-dir", dir, "--http", "0", ...extra], {
      env: { TOOLGATE_TOKEN: TOKEN, TOOLGATE_STATE_SECRET: "", TOOLGATE_STATE_CA: "", ...env },
    });

  it("--state naming no store: E_STATE_URL naming the flag, the forms that are right and a hint, never the password", async () => {
    const world = serveWorld();
    const run = await serveHttpWith(world.dir, ["--state", "mysql://admin:hunter2@db:3306/x"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "toolgate: error E_STATE_URL: --state must be memory, redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss://[USER:PASSWORD@]HOST:PORT[/DB] (Redis over TLS), but 'mysql:' is not a scheme toolgate keeps state in\n  hint: write one of those forms, e.g. redis://10.0.0.9:6379/0",
    );
    expect(run.stderr).not.toContain("hunter2");
  });

  it("state: in config.yaml naming no store: E_STATE_URL at its file:line, before anything starts", async () => {
    const world = serveWorld({ config: "enabled_mcp_servers: all\nstate: redis://10.0.0.9:6379/cache\n" });
    const run = await serveHttpWith(world.dir, [], { TOOLGATE_STATE_SECRET: "x".repeat(40) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /config\.yaml:2:8: error E_STATE_URL state: 'state' must be memory, .* but the database 'cache' in 'redis:\/\/10\.0\.0\.9:6379\/cache' is not a number \(hint: /,
    );
  });

  it("a Redis URL without TOOLGATE_STATE_SECRET: E_STATE_SECRET naming where the URL was given, before connecting", async () => {
    const world = serveWorld({ config: "enabled_mcp_servers: all\nstate: redis://:pw@127.0.0.1:9/0\n" });
    const fromConfig = await serveHttpWith(world.dir, []);
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toMatch(
      /^toolgate: error E_STATE_SECRET: state: at \S+config\.yaml:2 names redis:\/\/127\.0\.0\.1:9\/0, a store replicas share, and TOOLGATE_STATE_SECRET is not set\n {2}hint: set TOOLGATE_STATE_SECRET /m,
    );
    // --state wins over state:, and is named instead.
    const fromFlag = await serveHttpWith(world.dir, ["--state", "rediss://127.0.0.1:9"]);
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain(
      "toolgate: error E_STATE_SECRET: --state names rediss://127.0.0.1:9, a store replicas share",
    );
  });

  it("TOOLGATE_STATE_CA beside a plain redis:// URL: E_STATE_CA (a CA means TLS was meant)", async () => {
    const world = serveWorld();
    const run = await serveHttpWith(world.dir, ["--state", "redis://127.0.0.1:9"], {
      TOOLGATE_STATE_SECRET: "x".repeat(40),
      TOOLGATE_STATE_CA: join(world.dir, "ca.pem"),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "toolgate: error E_STATE_CA: TOOLGATE_STATE_CA is set but redis://127.0.0.1:9 is not TLS\n  hint: write the state URL as rediss://…",
    );
  });
});
