import { describe, expect, it } from "vitest";
import { defaultConfigFile } from "../../../../src/cli/install/clients.js";
import { applyChanges, wrappedCommandLine } from "../../../../src/cli/install/entryEdits.js";
import { planWraps } from "../../../../src/cli/install/installPlan.js";
import { findServerEntries, isWrapped } from "../../../../src/cli/install/serverEntries.js";

const LAUNCHER = { node: "/opt/node/bin/node", script: "/opt/toolgate/bin/toolgate.js" };

function entries(text: string) {
  const found = findServerEntries("f.json", text, LAUNCHER.script);
  if (!found.ok) throw new Error(found.message);
  return found.entries;
}

describe("finding and classifying server entries", () => {
  it("finds top-level mcpServers, VS Code's servers and Claude Code's project entries, each with its line", () => {
    const text =
      '{\n"mcpServers": {"a": {"command": "x"}},\n"projects": {"/p/q": {"mcpServers": {"b": {"command": "y"}}}}\n}';
    expect(entries(text).map((e) => [e.name, e.where, e.line, e.verdict.kind])).toEqual([
      ["a", "mcpServers", 2, "wrap"],
      ["b", 'projects["/p/q"].mcpServers', 3, "wrap"],
    ]);
    expect(entries('{"servers": {"v": {"type": "stdio", "command": "x"}}}')[0]!.path).toEqual([
      "servers",
      "v",
    ]);
  });

  it("leaves remote and wrapped entries, refuses what a rewrite would damage", () => {
    const verdicts = entries(
      JSON.stringify({
        mcpServers: {
          url: { url: "http://127.0.0.1:1/mcp" },
          sse: { type: "sse", command: "ignored" },
          mine: { command: LAUNCHER.node, args: [LAUNCHER.script, "wrap", "--", "x"] },
          none: { args: ["x"] },
          badArgs: { command: "x", args: [1] },
          vars: { command: "x", env: { K: "${env:K}" } },
          notObject: 3,
        },
      }),
    ).map((e) => [e.name, e.verdict.kind]);
    expect(verdicts).toEqual([
      ["url", "leave"],
      ["sse", "leave"],
      ["mine", "leave"],
      ["none", "refuse"],
      ["badArgs", "refuse"],
      ["vars", "refuse"],
      ["notObject", "refuse"],
    ]);
  });

  it("refuses a key given twice, and says where a file is not JSON", () => {
    expect(
      findServerEntries("f.json", '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}'),
    ).toMatchObject({ ok: false });
    const broken = findServerEntries("f.json", '{\n  "mcpServers": {\n');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^f\.json:\d+:\d+: error E_SYNTAX/);
  });

  it("reads a client's file larger than toolgate's own files may be; its nesting is bounded still", () => {
    // Claude Code keeps its history in ~/.claude.json: 10 MB and more is a file people have.
    const history = JSON.stringify("x".repeat(11 * 1024 * 1024));
    const big = `{"history": ${history},\n"mcpServers": {"a": {"command": "x"}}}`;
    expect(entries(big).map((e) => [e.name, e.line])).toEqual([["a", 2]]);
    const deep = findServerEntries("f.json", `{"mcpServers": {}, "x": ${"[".repeat(300)}${"]".repeat(300)}}`);
    expect(!deep.ok && deep.message).toMatch(/^f\.json:1:\d+: error E_TOO_DEEP/);
  });

  it("knows a toolgate wrap command line, by hand or installed", () => {
    expect(isWrapped(["toolgate", "wrap", "--", "x"])).toBe(true);
    expect(isWrapped(["/usr/bin/node", "/a/bin/toolgate.js", "wrap", "--", "x"])).toBe(true);
    expect(isWrapped(["node", "/a/dist/cli.js", "wrap"], "/a/dist/cli.js")).toBe(true);
    expect(isWrapped(["node", "server.js", "wrap"])).toBe(false);
    expect(isWrapped(["toolgate", "serve"])).toBe(false);
  });
});

describe("rewriting entries", () => {
  it("replaces only command and args, keeping one-line values on one line and everything else byte for byte", () => {
    const text =
      '{\n  // c\n  "mcpServers": { "a": { "command": "x", "args": ["1"], "env": {} /* e */ } }\n}\n';
    const to = wrappedCommandLine(
      LAUNCHER,
      { policy: "/p/a.yaml", auditLog: "/l/a.jsonl" },
      { command: "x", args: ["1"] },
    );
    const out = applyChanges(text, [{ path: ["mcpServers", "a"], to }]);
    expect(out).toBe(
      '{\n  // c\n  "mcpServers": { "a": { "command": "/opt/node/bin/node", "args": ["/opt/toolgate/bin/toolgate.js", "wrap", "--policy", "/p/a.yaml", "--audit-log", "/l/a.jsonl", "--", "x", "1"], "env": {} /* e */ } }\n}\n',
    );
    expect(applyChanges(out, [{ path: ["mcpServers", "a"], to: { command: "x", args: ["1"] } }])).toBe(text);
  });

  it("adds args where there were none, and removes them again on the way back", () => {
    const text = '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n';
    const out = applyChanges(text, [
      { path: ["mcpServers", "a"], to: { command: "n", args: ["s", "wrap"] } },
    ]);
    expect(JSON.parse(out)).toEqual({ mcpServers: { a: { command: "n", args: ["s", "wrap"] } } });
    expect(applyChanges(out, [{ path: ["mcpServers", "a"], to: { command: "x" } }])).toBe(text);
  });

  it("gives each entry its own policy file and audit log, a project's entry named after its project", () => {
    const found = entries(
      JSON.stringify({
        mcpServers: { "my server": { command: "x" }, "my/server": { command: "z" } },
        projects: { "/w/app": { mcpServers: { "my server": { command: "y" } } } },
      }),
    );
    const plans = planWraps(found, LAUNCHER, { policies: "/pol", audit: "/log" });
    expect(plans.map((p) => [p.policy, p.auditLog])).toEqual([
      ["/pol/my_server.yaml", "/log/my_server.jsonl"],
      ["/pol/my_server-2.yaml", "/log/my_server-2.jsonl"],
      ["/pol/my_server@app.yaml", "/log/my_server@app.jsonl"],
    ]);
    // The command line names both, before the server's own command line.
    expect(plans[0]!.wrapped.args).toEqual([
      "/opt/toolgate/bin/toolgate.js",
      "wrap",
      "--policy",
      "/pol/my_server.yaml",
      "--audit-log",
      "/log/my_server.jsonl",
      "--",
      "x",
    ]);
  });
});

describe("where each client keeps its file", () => {
  const env = {};
  it.each([
    ["claude-code", "linux", "/h/.claude.json"],
    ["claude-desktop", "linux", "/h/.config/Claude/claude_desktop_config.json"],
    ["claude-desktop", "darwin", "/h/Library/Application Support/Claude/claude_desktop_config.json"],
    ["cursor", "linux", "/h/.cursor/mcp.json"],
    ["vscode", "linux", "/h/.config/Code/User/mcp.json"],
    ["vscode", "darwin", "/h/Library/Application Support/Code/User/mcp.json"],
  ] as const)("%s on %s", (client, platform, path) => {
    expect(defaultConfigFile(client, { env, home: "/h", platform })).toBe(path);
  });
  it("follows CLAUDE_CONFIG_DIR and XDG_CONFIG_HOME", () => {
    expect(
      defaultConfigFile("claude-code", { env: { CLAUDE_CONFIG_DIR: "/c" }, home: "/h", platform: "linux" }),
    ).toBe("/c/.claude.json");
    expect(
      defaultConfigFile("vscode", { env: { XDG_CONFIG_HOME: "/x" }, home: "/h", platform: "linux" }),
    ).toBe("/x/Code/User/mcp.json");
  });
});
