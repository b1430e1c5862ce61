// `toolgate console` driven through piped standard input, as the built CLI: golden transcripts (the spec's own
// example among them), session persistence, exit codes, and real servers.
import { existsSync, readFileSync } from "node:fs";
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
  SPEC_TOOLS,
} from "./configDirHelpers.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, ROOT, tempDir } from "./helpers.js";
import { serveStreamableHttp, type HttpFixture } from "./httpFixture.js";

function expectGolden(actual: string, name: string): void {
  const golden = matchesGolden(actual, name);
  expect(golden.actual).toBe(golden.expected);
}

const script = (...lines: string[]): string => lines.map((l) => `${l}\n`).join("");

let github: HttpFixture;
let specDir: string;

beforeAll(async () => {
  github = await serveStreamableHttp(() => createCatalogServer(SPEC_TOOLS));
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

describe("console: the spec's example", () => {
  it("`.info mcp-server github` and `.list mcp-servers` as the spec shows them, then a `.set` typo note", async () => {
    const run = await runCli(["console", "--config-dir", specDir, "--role", "reviewer", "--echo"], {
      input: script(
        ".info mcp-server github",
        ".list mcp-servers",
        ".set mcp_tools.github get*_,list_*",
        ".info mcp-server github",
        ".info mcp-server slack",
      ),
    });
    expectGolden(run.stdout, "console-spec.txt");
    const spec = readFileSync(join(ROOT, "test/fixtures/configdir/golden/info-spec.txt"), "utf8");
    expect(run.stdout.startsWith(`> .info mcp-server github\n${spec}> .list mcp-servers\n`)).toBe(true);
    expect(run.stdout).toContain("Note: pattern 'get*_' matches no allowed tools on 'github'.\n");
    // `.info mcp-server slack` failed (slack is configured but not running): exit 1 with piped input.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Started MCP server 'github' (http, 4 tools).");
    expect(run.stderr).toContain("W_DEAD_PATTERN");
  });

  it("without --echo: no prompt and no echo, one block per line; exit 0 when every command succeeds", async () => {
    const run = await runCli(["console", "--config-dir", specDir, "--role", "reviewer"], {
      input: script(".list mcp-servers", "", "# a comment", ".info tools"),
    });
    expect(run.stdout).toBe(
      script(
        "MCP servers:",
        "  ✓ github [filtered]",
        "  ✗ slack",
        "tools (2 allowed / 4 total on 1 running server)",
        "  github__get_issue",
        "  github__search_code",
      ),
    );
    expect(run.code).toBe(0);
  });
});

describe("console: layers, switches and persistence", () => {
  let dir: string;
  let run: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    dir = configDir(
      {
        "mcp.json": mcpJson({
          github: catalogEntry([...SPEC_TOOLS, "delete_repo"]),
          gitlab: catalogEntry(["get_project", "list_projects", "delete_project"]),
          slack: catalogEntry(["post_message", "list_channels"]),
        }),
      },
      join(LIVE_FIXTURES, "console"),
    );
    run = await runCli(["console", "--config-dir", dir, "--echo"], {
      input: script(
        ".list mcp-servers",
        ".info tools",
        ".role reviewer",
        ".list mcp-servers",
        ".info mcp-server gitlab",
        ".session work",
        ".set mcp_tools.github get_issue,nothing_*",
        ".set mcp_tools.git list_*",
        ".set mcp_tools",
        ".info mcp-server github",
        ".skill load triage",
        ".info tools",
        ".skill unload triage",
        ".set mcp_tools.slack list_*",
        ".set mcp_tools.git null",
        ".set mcp_tools.gitlab null",
        ".session saved",
        ".set mcp_tools.github search_*",
        ".session",
        ".set mcp_tools.github get issue",
        ".agent helper",
        ".set mcp_tools.github get_*,search_*",
        ".info mcp-server github",
        ".agent pipeline",
        ".set mcp_tools.github get_*",
        ".node review",
        ".info mcp-server github",
        ".agent",
        ".node review",
        ".mcp disable github",
        ".info mcp-server github",
        ".mcp enable git",
        ".info tools",
        ".role nope",
        ".frobnicate",
        "no dot",
        ".help",
        ".exit",
        ".list mcp-servers",
      ),
    });
  });

  it("prints the transcript (golden)", () => {
    expectGolden(run.stdout.split(dir).join("<dir>"), "console-layers.txt");
  });

  it("exits 1 because some commands failed, and stops reading at .exit", () => {
    expect(run.code).toBe(1);
    expect(run.stdout.endsWith("> .exit\n")).toBe(true);
  });

  it("persists the session map in sessions/<name>.yaml", () => {
    expect(readFileSync(join(dir, "sessions/work.yaml"), "utf8")).toBe(
      "mcp_tools:\n  github: [ get_issue, nothing_* ]\n",
    );
  });

  it("keeps the other keys and comments of an existing session file", () => {
    expect(readFileSync(join(dir, "sessions/saved.yaml"), "utf8")).toBe(
      "# kept by the console when it writes this session\nmcp_tools:\n  github: [ search_* ]\nnotes: other settings stay\n",
    );
  });

  it("rejects .set for a graph agent with the spec's exact message", () => {
    expect(run.stdout).toContain(
      "> .set mcp_tools.github get_*\nerror E_GRAPH_AGENT_SET: Graph agents define MCP tool filters per-node via 'mcp_tools:' in graph.yaml\n",
    );
  });

  it("does not write history when the input is piped", () => {
    expect(existsSync(join(dir, ".console_history"))).toBe(false);
  });
});

describe("console: start-up", () => {
  it("configuration errors: exit 2 before reading any input", async () => {
    const dir = configDir({ "mcp.json": "{ not json", "config.yaml": "" });
    const run = await runCli(["console", "--config-dir", dir], { input: ".list mcp-servers\n" });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(join(dir, "mcp.json"));
  });

  it("an enabled server that cannot start is reported, and the console still runs", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ broken: { command: "tg-no-such-command-xyz" }, ok: catalogEntry(["t"]) }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["console", "--config-dir", dir], {
      input: script(".info tools", ".info mcp-server broken"),
    });
    expect(run.stderr).toContain("error E_UPSTREAM_CONNECT: cannot connect to MCP server 'broken'");
    expect(run.stdout).toContain(
      "tools (1 allowed / 1 total on 1 running server)\n  ok__t\n⚠ broken is enabled but not running: ",
    );
    expect(run.stdout).toContain(
      "error E_SERVER_NOT_RUNNING: MCP server 'broken' is configured but not running (it failed to start: ",
    );
    expect(run.code).toBe(1);
  });
});

describe("console against real servers", () => {
  it("server-everything and server-filesystem: info, .info tools, .set and a note, .mcp disable", async () => {
    const workspace = tempDir("tg-ws-");
    const dir = configDir({
      "mcp.json": mcpJson({
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        fs: { command: NODE, args: [FILESYSTEM_SERVER, workspace], allowedTools: ["read_*", "list_*"] },
      }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["console", "--config-dir", dir, "--session", "s1", "--echo"], {
      input: script(
        ".info mcp-server fs",
        ".set mcp_tools.everything echo,get-sum,no_such_tool",
        ".info tools",
        ".mcp disable fs",
        ".info tools",
        ".info mcp-server everything",
      ),
    });
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain("server         fs (stdio, connected)\ncapabilities   tools");
    expect(out).toContain("filter layers  global (mcp.json): read_* | list_*\n");
    expect(out).toMatch(/✗ write_file +hidden by global layer/);
    expect(out).toMatch(/✓ read_text_file +read_\* \(global\)/);
    expect(out).toContain("Note: pattern 'no_such_tool' matches no allowed tools on 'everything'.\n");
    expect(out).toContain("  everything__echo\n  everything__get-sum\n  fs__");
    expect(out).toContain("> .mcp disable fs\nStopped MCP server 'fs'.\n");
    expect(out).toContain(
      "> .info tools\ntools (2 allowed / 13 total on 1 running server)\n  everything__echo\n  everything__get-sum\n> .info mcp-server everything\n",
    );
    expect(out).toMatch(/filter layers {2}session \(s1\): echo \| get-sum \| no_such_tool\n/);
    expect(out).toContain("⚠ session pattern 'no_such_tool' matches no allowed tools\n");
    expect(readFileSync(join(dir, "sessions/s1.yaml"), "utf8")).toContain(
      "everything: [ echo, get-sum, no_such_tool ]",
    );
  });

  it("`.set mcp_tools.fs []` is refused with the deny-all hint; the session's entry and the tools stay", async () => {
    const workspace = tempDir("tg-ws-");
    const dir = configDir({
      "mcp.json": mcpJson({ fs: { command: NODE, args: [FILESYSTEM_SERVER, workspace] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
    });
    const run = await runCli(["console", "--config-dir", dir, "--session", "s2", "--echo"], {
      input: script(
        ".set mcp_tools.fs read_*",
        ".set mcp_tools.fs []",
        '.set mcp_tools.fs ""',
        ".set mcp_tools.fs [read_*,list_*]",
        ".set mcp_tools.fs",
        ".info tools",
      ),
    });
    const out = run.stdout;
    expect(out).toContain(
      "> .set mcp_tools.fs []\n" +
        "error E_SET_DENY_ALL: '[]' would be the deny-all empty list, which .set cannot express; nothing was changed\n" +
        "  hint: deny-all comes from a file: a 'fs: []' entry under mcp_tools, or a bare 'fs:' (null) in a role's or " +
        "skill's YAML front matter; `.set mcp_tools.fs null` only removes this layer's entry\n",
    );
    expect(out).toContain(
      `> .set mcp_tools.fs ""\nerror E_SET_DENY_ALL: '""' would be the deny-all empty list`,
    );
    expect(out).toContain(
      "> .set mcp_tools.fs [read_*,list_*]\nerror E_SET_VALUE: '[read_*,list_*]' is a bracketed list; " +
        ".set takes patterns separated by commas, without brackets or spaces\n" +
        "  hint: write `.set mcp_tools.fs read_*,list_*`\n",
    );
    // Nothing was stored: the entry is still read_*, and the tools it admits are still offered.
    expect(out).toContain("> .set mcp_tools.fs\nsession (s2): mcp_tools.fs = read_*\n");
    expect(out).toMatch(
      /> \.info tools\ntools \(\d+ allowed \/ \d+ total on 1 running server\)\n {2}fs__read_/,
    );
    expect(readFileSync(join(dir, "sessions/s2.yaml"), "utf8")).toBe("mcp_tools:\n  fs: [ read_* ]\n");
    expect(run.code).toBe(1);
  });
});
