import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  listConfigDirNames,
  loadConfigDir,
  loadRole,
  loadSession,
  resolveConfigDirPath,
} from "../../../src/config/configDir.js";
import type { Diagnostic } from "../../../src/engine/model/diagnostics.js";

const FIXTURES = join("test", "fixtures", "configdir");
const FULL = join(FIXTURES, "full");
const ERRORS = join(FIXTURES, "errors");

/** `relative/file:line:col CODE` for each diagnostic, relative to the fixture directory. */
function where(dir: string, diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file.slice(dir.length + 1)}:${d.line}:${d.column} ${d.code}`);
}

describe("loadConfigDir on a directory using every level", () => {
  const { config, diagnostics } = loadConfigDir(FULL, {
    role: "reviewer",
    agent: "pipeline",
    session: "work",
    skills: ["triage", "blocker"],
    node: "review",
  });

  it("reports only the intended warnings, with file, line and column", () => {
    expect(where(FULL, diagnostics)).toEqual([
      "mcp.json:16:7 W_EMPTY_ALLOWED_TOOLS",
      "skills/triage/SKILL.md:7:3 W_SKILL_SERVER_NOT_ENABLED",
    ]);
    expect(diagnostics[0]!.message).toBe(
      `MCP server 'gitlab' has an empty "allowedTools" list, so none of its tools will be callable`,
    );
  });

  it("reads mcp.json with all three transports, in file order", () => {
    expect(config.mcp.servers.map((s) => [s.name, s.transport])).toEqual([
      ["github", "http"],
      ["slack", "stdio"],
      ["gitlab", "sse"],
      ["fs", "stdio"],
    ]);
  });

  it("reads config.yaml", () => {
    expect(config.global.enabledMcpServers).toMatchObject({
      all: false,
      names: [{ name: "github" }, { name: "slack" }],
    });
    expect(config.global.aliases.map((a) => a.alias)).toEqual(["git", "code"]);
    expect(config.global.mcpTools?.map((e) => e.key)).toEqual(["git", "slack"]);
    expect(config.global.policy?.path).toBe("policy.yaml");
  });

  it("reads the role's front matter with lines as in the Markdown file", () => {
    const role = config.roles.get("reviewer")!;
    expect(role.mcpTools?.map((e) => [e.key, e.keyAt?.line, e.patterns.map((p) => p.source)])).toEqual([
      ["github", 4, ["get_*", "search_*", "bogus_*"]],
      ["slack", 5, []],
    ]);
    expect(role.file).toBe(join(FULL, "roles", "reviewer.md"));
  });

  it("reads the graph agent, its graph-level map and nodes", () => {
    const agent = config.agents.get("pipeline")!;
    expect(agent.kind).toBe("graph");
    if (agent.kind !== "graph") return;
    expect(agent.nodes.map((n) => [n.id, n.type, n.mcpTools?.map((e) => e.key) ?? null])).toEqual([
      ["review", "llm", ["github"]],
      ["summarize", "llm", null],
      ["fetch", "tool", null],
    ]);
  });

  it("reads the session and the skills", () => {
    expect(config.sessions.get("work")).toMatchObject({ exists: true, mcpTools: [{ key: "github" }] });
    expect(config.skills.get("blocker")?.mcpTools).toEqual([
      expect.objectContaining({ key: "github", patterns: [] }),
    ]);
  });
});

describe("loadConfigDir reports every problem of a broken directory with file:line:col", () => {
  it("mcp.json, config.yaml, a role, an agent with comma strings, a session and a skill", () => {
    const { config, diagnostics } = loadConfigDir(ERRORS, {
      role: "bad",
      agent: "commas",
      session: "bad",
      skills: ["s"],
    });
    expect(where(ERRORS, diagnostics)).toEqual([
      "mcp.json:3:5 E_SERVER_NAME",
      "mcp.json:4:5 E_SERVER_NAME",
      "mcp.json:5:5 E_MCP_SERVER",
      "mcp.json:8:23 E_FIELD_TYPE",
      "mcp.json:9:7 W_UNKNOWN_FIELD",
      "mcp.json:13:33 W_INVALID_PATTERN",
      "mcp.json:13:37 W_INVALID_PATTERN",
      "mcp.json:13:50 W_INVALID_PATTERN",
      "mcp.json:13:57 W_INVALID_PATTERN",
      "mcp.json:15:22 E_MCP_SERVER",
      "mcp.json:16:5 E_MCP_SERVER",
      "mcp.json:18:3 W_UNKNOWN_FIELD",
      "config.yaml:1:30 W_UNKNOWN_SERVER",
      "config.yaml:3:3 E_ALIAS_CONFLICT",
      "config.yaml:4:8 W_UNKNOWN_SERVER",
      "config.yaml:6:9 E_MCP_TOOLS_FORM",
      "config.yaml:7:3 W_UNKNOWN_SERVER",
      "config.yaml:8:1 W_UNKNOWN_FIELD",
      "roles/bad.md:2:22 E_FIELD_TYPE",
      "roles/bad.md:5:3 W_UNKNOWN_SERVER",
      "roles/bad.md:6:3 W_UNKNOWN_SERVER",
      "roles/bad.md:7:1 W_UNKNOWN_FIELD",
      "agents/commas/config.yaml:1:14 E_FIELD_TYPE",
      "agents/commas/config.yaml:3:10 E_MCP_TOOLS_FORM",
      "agents/commas/config.yaml:4:3 W_UNKNOWN_SERVER",
      "agents/commas/config.yaml:4:8 E_MCP_TOOLS_FORM",
      "sessions/bad.yaml:1:12 E_FIELD_TYPE",
      "skills/s/SKILL.md:4:16 W_INVALID_PATTERN",
    ]);
    // Only the valid server survives; the one with an unreadable whitelist is left out, not opened up.
    expect(config.mcp.servers.map((s) => s.name)).toEqual(["mixed"]);
  });

  it("the graph validator's error, exactly as the spec words it", () => {
    const { diagnostics } = loadConfigDir(ERRORS, { agent: "graph", skills: [], node: "review" });
    const graph = diagnostics.filter((d) => d.file.endsWith("graph.yaml"));
    expect(where(ERRORS, graph)).toEqual([
      "agents/graph/graph.yaml:4:10 E_MCP_TOOLS_FORM",
      "agents/graph/graph.yaml:8:13 W_GRAPH_SERVER_NOT_ENABLED",
      "agents/graph/graph.yaml:10:7 E_GRAPH_SERVER_NOT_ENABLED",
      "agents/graph/graph.yaml:14:5 E_GRAPH_NODE",
      "agents/graph/graph.yaml:16:3 E_GRAPH_NODE",
    ]);
    expect(graph[2]!.message).toBe(
      "llm node 'mcp_tools' references MCP server 'github' not enabled by this graph",
    );
    expect(graph[2]!.path).toBe("nodes.review.mcp_tools.github");
  });

  it("a graph with mcp_servers: [all] accepts any key", () => {
    const { diagnostics } = loadConfigDir(FULL, { agent: "open", skills: [], node: "chat" });
    expect(diagnostics.filter((d) => d.file.endsWith("graph.yaml"))).toEqual([]);
  });

  it("aliases of enabled servers are accepted as node keys", () => {
    // pipeline enables the alias `code` (github, fs); its node names github directly.
    const { diagnostics } = loadConfigDir(FULL, { agent: "pipeline", skills: [], node: "summarize" });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
});

describe("selection problems", () => {
  it.each([
    [{ role: "nope", skills: [] }, "E_CONFIG_NOT_FOUND", "roles/nope.md"],
    [{ agent: "nope", skills: [] }, "E_CONFIG_NOT_FOUND", "agents/nope"],
    [{ skills: ["nope"] }, "E_CONFIG_NOT_FOUND", "skills/nope/SKILL.md"],
    [{ role: "../x", skills: [] }, "E_NAME", "roles/../x.md"],
    [{ node: "review", skills: [] }, "E_SELECTION", ""],
    [{ agent: "helper", node: "review", skills: [] }, "E_SELECTION", "agents/helper/config.yaml"],
    [{ agent: "pipeline", node: "nope", skills: [] }, "E_SELECTION", "agents/pipeline/graph.yaml"],
  ])("%j", (selection, code, file) => {
    const { diagnostics } = loadConfigDir(FULL, selection);
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.code)).toEqual([code]);
    expect(errors[0]!.file).toBe(file === "" ? FULL : join(FULL, file));
  });

  it("a session without a file is a new, empty session when the console starts it", () => {
    const base = loadConfigDir(FULL, { skills: [] }).config;
    const { config, diagnostics } = loadSession(base, "fresh");
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(config.sessions.get("fresh")).toMatchObject({ exists: false, mcpTools: null });
  });

  it("a session named by a flag that has no file is an error, like a mistyped role", () => {
    const { diagnostics } = loadConfigDir(FULL, { session: "fresh", skills: [] });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([
      expect.objectContaining({
        code: "E_CONFIG_NOT_FOUND",
        message: expect.stringContaining("no session 'fresh'"),
      }),
    ]);
  });

  it("a directory without mcp.json is an error", () => {
    const { diagnostics } = loadConfigDir(join(FIXTURES, "does-not-exist"), { skills: [] });
    expect(diagnostics.map((d) => d.code)).toEqual(["E_CONFIG_NOT_FOUND"]);
  });

  it("a role without front matter restricts nothing", () => {
    const { config, diagnostics } = loadConfigDir(FULL, { role: "plain", skills: [] });
    expect(diagnostics.filter((d) => d.file.includes("plain"))).toEqual([]);
    expect(config.roles.get("plain")).toMatchObject({ enabledMcpServers: null, mcpTools: null });
  });

  it("loadRole adds a role to a loaded configuration without touching the original", () => {
    const base = loadConfigDir(FULL, { skills: [] }).config;
    const next = loadRole(base, "reviewer");
    expect(next.config.roles.has("reviewer")).toBe(true);
    expect(base.roles.has("reviewer")).toBe(false);
  });
});

describe("directory helpers", () => {
  it("lists roles, agents, sessions and skills", () => {
    expect(listConfigDirNames(FULL)).toEqual({
      roles: ["plain", "reviewer"],
      agents: ["helper", "open", "pipeline"],
      sessions: ["work"],
      skills: ["blocker", "triage"],
    });
  });

  it("resolves the directory from the flag, then the environment, then the home directory", () => {
    expect(resolveConfigDirPath("d", { TOOLGATE_CONFIG_DIR: "e" }, "/h")).toBe("d");
    expect(resolveConfigDirPath(undefined, { TOOLGATE_CONFIG_DIR: "e" }, "/h")).toBe("e");
    expect(resolveConfigDirPath(undefined, {}, "/h")).toBe(join("/h", ".config", "toolgate"));
  });
});
