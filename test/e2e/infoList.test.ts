// `toolgate info` and `toolgate list` run as the built CLI against real servers: the spec's own example
// (an http server with exactly the example's four tools), server-everything and server-filesystem.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCatalogServer } from "../fixtures/servers/catalogServer.mjs";
import {
  catalogEntry,
  configDir,
  LIVE_FIXTURES,
  matchesGolden,
  mcpJson,
  runCli,
} from "./configDirHelpers.js";
import { connect, EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, ROOT, tempDir } from "./helpers.js";
import { serveStreamableHttp, type HttpFixture } from "./httpFixture.js";

function expectGolden(actual: string, name: string): void {
  const golden = matchesGolden(actual, name);
  expect(golden.actual).toBe(golden.expected);
}
const configGolden = (name: string): string =>
  readFileSync(join(ROOT, "test/fixtures/configdir/golden", name), "utf8");

let github: HttpFixture;
let specDir: string;

beforeAll(async () => {
  // The spec's order of listing is not alphabetical; the view sorts.
  github = await serveStreamableHttp(() =>
    createCatalogServer(["list_issues", "search_code", "get_issue", "create_pull_request"]),
  );
  specDir = configDir(
    {
      "mcp.json": mcpJson({
        github: {
          type: "http",
          url: github.url,
          allowedTools: ["get_*", "list_*", "search_*", "create_pull_request"],
        },
        slack: { command: "slack-mcp" },
      }),
    },
    join(LIVE_FIXTURES, "spec"),
  );
});

afterAll(async () => {
  await github?.close();
});

describe("toolgate info: the spec's example", () => {
  it("prints the spec's `.info mcp-server github` view line for line", async () => {
    const run = await runCli(["info", "github", "--config-dir", specDir, "--role", "reviewer"]);
    expect(run.stdout).toBe(configGolden("info-spec.txt"));
    expect(run.stdout.split("\n").slice(0, 3)).toEqual([
      "server         github (http, connected)",
      "capabilities   tools",
      "filter layers  global (mcp.json): get_* | list_* | search_* | create_pull_request",
    ]);
    expect(run.code).toBe(0);
  });

  it("logs the dead pattern as a warning with file and line on stderr", async () => {
    const run = await runCli(["info", "github", "--config-dir", specDir, "--role", "reviewer"]);
    expect(run.stderr).toBe(
      `${join(specDir, "roles/reviewer.md")}:4:26: warning W_DEAD_PATTERN mcp_tools.github: ` +
        `role pattern 'bogus_*' matches no allowed tools on 'github' (role (reviewer))\n`,
    );
  });

  it("--format json (golden)", async () => {
    const run = await runCli([
      "info",
      "github",
      "--config-dir",
      specDir,
      "--role",
      "reviewer",
      "--format",
      "json",
    ]);
    expect(run.code).toBe(0);
    expectGolden(run.stdout.split(specDir).join("<dir>"), "info-spec.json.txt");
  });

  it("without the role: only the global layer", async () => {
    const run = await runCli(["info", "github", "--config-dir", specDir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "filter layers  global (mcp.json): get_* | list_* | search_* | create_pull_request\n\n",
    );
    expect(run.stdout).toContain("tools (4 allowed / 4 total)\n");
    expect(run.stdout).toContain("  ✓ list_issues           list_* (global)\n");
    expect(run.stderr).toBe("");
  });

  it("the directory comes from $TOOLGATE_CONFIG_DIR when there is no --config-dir", async () => {
    const run = await runCli(["info", "github", "--role", "reviewer"], {
      env: { TOOLGATE_CONFIG_DIR: specDir },
    });
    expect(run.stdout).toBe(configGolden("info-spec.txt"));
  });
});

describe("toolgate info: errors", () => {
  it("a server that is not configured: exit 2, naming the configured ones", async () => {
    const run = await runCli(["info", "gitlab", "--config-dir", specDir]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "toolgate: error E_UNKNOWN_SERVER: MCP server 'gitlab' is not configured in mcp.json\n" +
        "  hint: did you mean 'github'? (configured servers: github, slack)\n",
    );
  });

  it("a configured server that is not enabled: exit 2, saying how to enable it", async () => {
    const run = await runCli(["info", "slack", "--config-dir", specDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "toolgate: error E_SERVER_NOT_ENABLED: MCP server 'slack' is configured but not enabled in the current context\n" +
        "  hint: set `enabled_mcp_servers: [slack]` (or `all`) in config.yaml, or run `.mcp enable slack` in toolgate console\n",
    );
  });

  it("when the role decides the enabled servers, the hint names the role file", async () => {
    const run = await runCli(["info", "slack", "--config-dir", specDir, "--role", "reviewer"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("add slack to `enabled_mcp_servers:` in roles/reviewer.md");
  });

  it("a server that cannot be started: exit 1 with E_UPSTREAM_CONNECT and the reason", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ broken: { command: "tg-no-such-command-xyz" } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["info", "broken", "--config-dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "toolgate: error E_UPSTREAM_CONNECT: cannot connect to MCP server 'broken' (stdio: tg-no-such-command-xyz)",
    );
    expect(run.stderr).toContain("was not found (spawn ENOENT)");
  });

  it("configuration errors: every diagnostic with file:line, exit 2, no server started", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ a: catalogEntry(["x"]) }),
      "config.yaml": "enabled_mcp_servers: all\nmcp_tools: [oops]\n",
    });
    const run = await runCli(["info", "a", "--config-dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(
      new RegExp(`^${join(dir, "config.yaml").replace(/[.]/g, "\\.")}:2:\\d+: error `, "m"),
    );
    expect(run.stderr).toContain("has errors");
  });

  it("a missing directory is named as one that does not exist", async () => {
    const run = await runCli(["info", "a", "--config-dir", join(tempDir(), "nowhere")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(": no such directory");
  });

  it("an unusable policy refuses to start anything", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ a: catalogEntry(["x"]) }),
      "config.yaml": "enabled_mcp_servers: all\n",
      "bad.yaml": 'version: "2.0"\ntools: 5\n',
    });
    const run = await runCli(["info", "a", "--config-dir", dir, "--policy", join(dir, "bad.yaml")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cannot be used");
  });
});

describe("toolgate info against real servers", () => {
  it("server-everything without filters: (none — all tools allowed) and every tool the server lists", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
    const names = (await bare.client.listTools()).tools.map((t) => t.name).sort();
    await bare.close();
    const run = await runCli(["info", "everything", "--config-dir", dir]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe("server         everything (stdio, connected)");
    expect(lines[1]).toMatch(/^capabilities {3}tools, resources, prompts/);
    expect(lines[2]).toBe("filter layers  (none — all tools allowed)");
    expect(lines[4]).toBe(`tools (${names.length} allowed / ${names.length} total)`);
    expect(lines.slice(5, 5 + names.length)).toEqual(names.map((n) => `  ✓ ${n}`));
  });

  it("server-filesystem with config, role and policy layers: each hidden tool names its layer", async () => {
    const workspace = tempDir("tg-ws-");
    writeFileSync(join(workspace, "a.txt"), "a");
    const dir = configDir({
      "mcp.json": mcpJson({
        fs: { command: NODE, args: [FILESYSTEM_SERVER, workspace], allowedTools: ["*"] },
      }),
      "config.yaml":
        "enabled_mcp_servers: all\nmcp_tools:\n  fs: [read_*, list_*, get_*, search_files, write_file]\npolicy: policy.yaml\n",
      "roles/reader.md": "---\nmcp_tools:\n  fs: read_*,list_*,search_files,typo_*\n---\n",
      "policy.yaml": 'version: "2.0"\ntools:\n  deny: [read_media_file]\n',
      "other.yaml": 'version: "2.0"\ntools:\n  deny: [list_directory]\n',
    });
    const run = await runCli(["info", "fs", "--config-dir", dir, "--role", "reader"]);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain(
      [
        "filter layers  global (mcp.json): *",
        "               config (config.yaml): read_* | list_* | get_* | search_files | write_file",
        "               role (reader): read_* | list_* | search_files | typo_*",
        "               policy (policy.yaml): deny read_media_file",
      ].join("\n"),
    );
    expect(out).toMatch(/✗ edit_file +hidden by config layer/);
    expect(out).toMatch(/✗ get_file_info +hidden by role layer/);
    expect(out).toMatch(/✗ read_media_file +hidden by policy layer/);
    expect(out).toMatch(
      /✓ read_text_file +\* \(global\) ∧ read_\* \(config\) ∧ read_\* \(role\) ∧ \* \(policy\)/,
    );
    expect(out).toContain("⚠ role pattern 'typo_*' matches no allowed tools\n");
    expect(run.stderr).toContain("roles/reader.md:3:");
    expect(run.stderr).toContain("W_DEAD_PATTERN");

    // --policy wins over config.yaml's policy:
    const flagged = await runCli([
      "info",
      "fs",
      "--config-dir",
      dir,
      "--role",
      "reader",
      "--policy",
      join(dir, "other.yaml"),
    ]);
    expect(flagged.stdout).toContain(`policy (${join(dir, "other.yaml")}): deny list_directory`);
    expect(flagged.stdout).toMatch(/✓ read_media_file +/);
    expect(flagged.stdout).toMatch(/✗ list_directory +hidden by policy layer/);
  });
});

describe("toolgate list", () => {
  it("prints the spec's `.list mcp-servers` view (golden) and starts no server", async () => {
    const before = github.headers.length;
    const run = await runCli(["list", "--config-dir", specDir, "--role", "reviewer"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(configGolden("list-spec.txt"));
    expect(github.headers.length).toBe(before);
  });

  it("aliases, [filtered] from any layer or a policy with name rules, and JSON (golden)", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({
        github: catalogEntry(["a"], { allowedTools: ["get_*"] }),
        gitlab: catalogEntry(["a"]),
        slack: catalogEntry(["a"]),
        fs: catalogEntry(["a"]),
      }),
      "config.yaml":
        "enabled_mcp_servers: [github, git]\nmapping_mcp_servers:\n  git: github,gitlab\n  chat: slack\nmcp_tools:\n  gitlab: [list_*]\n",
      "deny.yaml": 'version: "2.0"\ntools:\n  deny: [x]\n',
    });
    const run = await runCli(["list", "--config-dir", dir]);
    expectGolden(run.stdout, "list-aliases.txt");
    const withPolicy = await runCli(["list", "--config-dir", dir, "--policy", join(dir, "deny.yaml")]);
    expectGolden(withPolicy.stdout, "list-aliases-policy.txt");
    const json = await runCli(["list", "--config-dir", dir, "--format", "json"]);
    expectGolden(json.stdout, "list-aliases.json.txt");
  });

  it("rejects an unknown --format", async () => {
    const run = await runCli(["list", "--config-dir", specDir, "--format", "yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("expected text or json");
  });
});
