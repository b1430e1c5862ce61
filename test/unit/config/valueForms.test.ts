import { describe, expect, it } from "vitest";
import { parseAgentConfig } from "../../../src/config/agentConfig.js";
import { parseConfigYaml } from "../../../src/config/configYaml.js";
import type { Diagnostic } from "../../../src/engine/model/diagnostics.js";
import { parseGraphFile } from "../../../src/config/graphFile.js";
import type { ServerSelection, ToolsMap } from "../../../src/engine/model/patternLists.js";
import { parseRoleFile } from "../../../src/config/roleFile.js";
import { parseSessionFile } from "../../../src/config/sessionFile.js";
import { parseSkillFile } from "../../../src/config/skillFile.js";

type Kind = "config" | "role" | "skill" | "agent" | "graph" | "node" | "session";

/** Parses `github: <value>` as the `mcp_tools` map of one file kind. */
function parseToolsValue(kind: Kind, value: string): { map: ToolsMap | null; diagnostics: Diagnostic[] } {
  const line = `github: ${value}`.trimEnd();
  switch (kind) {
    case "config": {
      const r = parseConfigYaml("config.yaml", `mcp_tools:\n  ${line}\n`);
      return { map: r.config.mcpTools, diagnostics: r.diagnostics };
    }
    case "role": {
      const r = parseRoleFile("r", "r.md", `---\nmcp_tools:\n  ${line}\n---\nbody\n`);
      return { map: r.role.mcpTools, diagnostics: r.diagnostics };
    }
    case "skill": {
      const r = parseSkillFile(
        "s",
        "SKILL.md",
        `---\nenabled_mcp_servers: github\nmcp_tools:\n  ${line}\n---\n`,
      );
      return { map: r.skill.mcpTools, diagnostics: r.diagnostics };
    }
    case "agent": {
      const r = parseAgentConfig("a", "config.yaml", `mcp_tools:\n  ${line}\n`);
      return { map: r.agent.mcpTools, diagnostics: r.diagnostics };
    }
    case "graph": {
      const r = parseGraphFile("g", "graph.yaml", `mcp_servers: [github]\nmcp_tools:\n  ${line}\n`);
      return { map: r.graph.mcpTools, diagnostics: r.diagnostics };
    }
    case "node": {
      const r = parseGraphFile(
        "g",
        "graph.yaml",
        `mcp_servers: [github]\nnodes:\n  n:\n    type: llm\n    mcp_tools:\n      ${line}\n`,
      );
      return { map: r.graph.nodes[0]!.mcpTools, diagnostics: r.diagnostics };
    }
    case "session": {
      const r = parseSessionFile("s", "s.yaml", `mcp_tools:\n  ${line}\n`);
      return { map: r.session.mcpTools, diagnostics: r.diagnostics };
    }
  }
}

const LIST = "[get_*, list_*]";
const COMMA = "get_*,list_*";
const ALL_KINDS: Kind[] = ["config", "role", "skill", "agent", "graph", "node", "session"];
const COMMA_KINDS: Kind[] = ["config", "role", "skill", "session"];
const LIST_ONLY_KINDS: Kind[] = ["agent", "graph", "node"];
const NULL_BLOCKS_KINDS: Kind[] = ["role", "skill"];

describe("mcp_tools value forms per file", () => {
  it.each(ALL_KINDS)("%s: a YAML list is accepted", (kind) => {
    const { map, diagnostics } = parseToolsValue(kind, LIST);
    expect(diagnostics).toEqual([]);
    expect(map?.[0]?.patterns.map((p) => p.source)).toEqual(["get_*", "list_*"]);
  });

  it.each(ALL_KINDS)("%s: an empty list is kept as [] (blocks all)", (kind) => {
    const { map, diagnostics } = parseToolsValue(kind, "[]");
    expect(diagnostics).toEqual([]);
    expect(map).toEqual([expect.objectContaining({ key: "github", patterns: [] })]);
  });

  it.each(COMMA_KINDS)("%s: a comma-separated string is accepted", (kind) => {
    const { map, diagnostics } = parseToolsValue(kind, COMMA);
    expect(diagnostics).toEqual([]);
    expect(map?.[0]?.patterns.map((p) => p.source)).toEqual(["get_*", "list_*"]);
  });

  it.each(COMMA_KINDS)("%s: a single string is one pattern", (kind) => {
    const { map } = parseToolsValue(kind, "get_issue");
    expect(map?.[0]?.patterns.map((p) => p.source)).toEqual(["get_issue"]);
  });

  it.each(LIST_ONLY_KINDS)("%s: a comma-separated string is an error naming the line", (kind) => {
    const { map, diagnostics } = parseToolsValue(kind, COMMA);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: "error", code: "E_MCP_TOOLS_FORM" });
    expect(diagnostics[0]!.message).toContain("must be YAML lists");
    expect(diagnostics[0]!.message).toContain("(write github: [get_*, list_*])");
    // The entry in error blocks everything, so going on regardless still fails closed.
    expect(map?.[0]?.patterns).toEqual([]);
  });

  it.each(LIST_ONLY_KINDS)("%s: even a single string is rejected (lists only)", (kind) => {
    const { diagnostics } = parseToolsValue(kind, "get_issue");
    expect(diagnostics.map((d) => d.code)).toEqual(["E_MCP_TOOLS_FORM"]);
  });

  it.each(NULL_BLOCKS_KINDS.flatMap((k) => ["", "null", "~"].map((v) => [k, v] as const)))(
    "%s: a bare null value (%j) blocks all of the server's tools",
    (kind, value) => {
      const { map, diagnostics } = parseToolsValue(kind, value);
      expect(diagnostics).toEqual([]);
      expect(map).toEqual([expect.objectContaining({ key: "github", patterns: [] })]);
    },
  );

  it.each(ALL_KINDS.filter((k) => !NULL_BLOCKS_KINDS.includes(k)))("%s: a null value is an error", (kind) => {
    const { map, diagnostics } = parseToolsValue(kind, "null");
    expect(diagnostics.map((d) => d.code)).toEqual(["E_MCP_TOOLS_FORM"]);
    expect(map?.[0]?.patterns).toEqual([]);
  });

  it.each(ALL_KINDS)("%s: a number or a map value is a type error", (kind) => {
    expect(parseToolsValue(kind, "5").diagnostics.map((d) => d.code)).toEqual(["E_FIELD_TYPE"]);
    expect(parseToolsValue(kind, "{a: 1}").diagnostics.map((d) => d.code)).toEqual(["E_FIELD_TYPE"]);
  });

  it("a quoted 'null' in a role is the literal pattern null, not deny-all", () => {
    const { map } = parseToolsValue("role", '"null"');
    expect(map?.[0]?.patterns.map((p) => p.source)).toEqual(["null"]);
  });

  it("pieces of a comma string are not trimmed: a space makes an invalid pattern that matches nothing", () => {
    const { map, diagnostics } = parseToolsValue("config", '"get_*, list_*"');
    expect(map?.[0]?.patterns.map((p) => [p.source, p.problem !== null])).toEqual([
      ["get_*", false],
      [" list_*", true],
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual(["W_INVALID_PATTERN"]);
  });

  it("each piece of a plain comma string gets its own column", () => {
    const { map } = parseToolsValue("config", "get_*,list_*,x");
    // `  github: get_*,list_*,x` — the value starts at column 11.
    expect(map?.[0]?.patterns.map((p) => p.at?.column)).toEqual([11, 17, 24]);
    expect(map?.[0]?.patterns.every((p) => p.at?.line === 2)).toBe(true);
  });

  it("invalid list items warn with their own line and column and are kept as matching nothing", () => {
    const r = parseConfigYaml(
      "c.yaml",
      "mcp_tools:\n  github:\n    - get_*\n    - 42\n    - [x]\n    - ''\n",
    );
    const patterns = r.config.mcpTools![0]!.patterns;
    expect(patterns.map((p) => [p.source, p.problem === null])).toEqual([
      ["get_*", true],
      ["42", false],
      ["a list", false],
      ["", false],
    ]);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.column, d.path])).toEqual([
      ["W_INVALID_PATTERN", 4, 7, "mcp_tools.github[1]"],
      ["W_INVALID_PATTERN", 5, 7, "mcp_tools.github[2]"],
      ["W_INVALID_PATTERN", 6, 7, "mcp_tools.github[3]"],
    ]);
  });

  it("mcp_tools that is not a map is an error; mcp_tools: null is no map", () => {
    expect(parseConfigYaml("c.yaml", "mcp_tools: [a]\n").diagnostics.map((d) => d.code)).toEqual([
      "E_FIELD_TYPE",
    ]);
    const r = parseConfigYaml("c.yaml", "mcp_tools: null\n");
    expect(r.diagnostics).toEqual([]);
    expect(r.config.mcpTools).toBeNull();
  });
});

describe("server selection forms", () => {
  const names = (s: ServerSelection | null): string[] | "all" | null =>
    s === null ? null : s.all ? "all" : s.names.map((n) => n.name);

  it.each([
    ["[github, slack]", ["github", "slack"]],
    ["github,slack", ["github", "slack"]],
    ["github, slack", ["github", "slack"]],
    ["github", ["github"]],
    ["all", "all"],
    ["[all]", "all"],
    ["null", null],
    ['""', []],
  ] as const)("config.yaml enabled_mcp_servers: %s", (value, expected) => {
    const r = parseConfigYaml("c.yaml", `enabled_mcp_servers: ${value}\n`);
    expect(r.diagnostics).toEqual([]);
    expect(names(r.config.enabledMcpServers)).toEqual(expected);
  });

  it("roles and skills accept the same forms as config.yaml", () => {
    expect(
      names(
        parseRoleFile("r", "r.md", "---\nenabled_mcp_servers: github,slack\n---\n").role.enabledMcpServers,
      ),
    ).toEqual(["github", "slack"]);
    expect(
      names(parseSkillFile("s", "S.md", "---\nenabled_mcp_servers: all\n---\n").skill.enabledMcpServers),
    ).toBe("all");
  });

  it("agents and graphs take YAML lists, with [all] meaning every server", () => {
    expect(names(parseAgentConfig("a", "c.yaml", "mcp_servers: [github]\n").agent.mcpServers)).toEqual([
      "github",
    ]);
    expect(names(parseGraphFile("g", "g.yaml", "mcp_servers: [all]\n").graph.mcpServers)).toBe("all");
    const bad = parseAgentConfig("a", "c.yaml", "mcp_servers: github,slack\n");
    expect(bad.diagnostics.map((d) => [d.code, d.line])).toEqual([["E_FIELD_TYPE", 1]]);
    expect(bad.diagnostics[0]!.message).toContain("(write mcp_servers: [github, slack])");
    expect(parseGraphFile("g", "g.yaml", "mcp_servers: all\n").diagnostics.map((d) => d.code)).toEqual([
      "E_FIELD_TYPE",
    ]);
  });

  it("a non-name list item is an error with its line", () => {
    const r = parseConfigYaml("c.yaml", "enabled_mcp_servers:\n  - github\n  - 3\n");
    expect(r.diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ["E_FIELD_TYPE", 3, "enabled_mcp_servers[1]"],
    ]);
  });
});

describe("config.yaml", () => {
  it("reads aliases as lists or comma strings, and the policy path", () => {
    const r = parseConfigYaml(
      "c.yaml",
      "mapping_mcp_servers:\n  git: github,gitlab\n  code: [github, fs]\npolicy: policies/p.yaml\n",
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.config.aliases.map((a) => [a.alias, a.servers.map((s) => s.name)])).toEqual([
      ["git", ["github", "gitlab"]],
      ["code", ["github", "fs"]],
    ]);
    expect(r.config.policy).toMatchObject({ path: "policies/p.yaml", at: { line: 4 } });
  });

  it("rejects alias names that cannot name servers and aliases of all", () => {
    const r = parseConfigYaml("c.yaml", "mapping_mcp_servers:\n  a__b: github\n  every: all\n");
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["E_SERVER_NAME", 2],
      ["E_FIELD_TYPE", 3],
    ]);
  });

  it("warns about unknown keys with a suggestion", () => {
    const r = parseConfigYaml("c.yaml", "mcp_tool:\n  github: [a]\n");
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ code: "W_UNKNOWN_FIELD", line: 1, hint: "did you mean 'mcp_tools'?" }),
    ]);
  });
});

describe("graph.yaml nodes", () => {
  it("reads type, tools and the mcp: servers a node uses", () => {
    const r = parseGraphFile(
      "g",
      "g.yaml",
      'mcp_servers:\n  - github\nnodes:\n  review:\n    type: llm\n    prompt: "{{diff}}"\n    tools: [mcp:github, web]\n',
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.graph.nodes[0]).toMatchObject({ id: "review", type: "llm", tools: ["mcp:github", "web"] });
    expect(r.graph.nodes[0]!.toolServers.map((s) => s.name)).toEqual(["github"]);
  });

  it("only llm nodes accept mcp_tools, and every node needs a type", () => {
    const r = parseGraphFile(
      "g",
      "g.yaml",
      "nodes:\n  a:\n    type: tool\n    mcp_tools:\n      x: [y]\n  b:\n    prompt: p\n",
    );
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["E_GRAPH_NODE", 4],
      ["E_GRAPH_NODE", 6],
    ]);
  });
});
