import { describe, expect, it } from "vitest";
import { checkAgent, graphServerNotEnabledMessage } from "../../../src/config/configDirCheck.js";
import type { ConfigDir } from "../../../src/engine/model/configDir.js";
import { emptyGlobalConfig, parseConfigYaml } from "../../../src/config/configYaml.js";
import { parseGraphFile } from "../../../src/config/graphFile.js";
import { parseMcpJson } from "../../../src/config/mcpJson.js";

const MCP = JSON.stringify({
  mcpServers: { "pubmed-search": { command: "x" }, github: { command: "x" }, gitlab: { command: "x" } },
});

function check(graphYaml: string, configYaml?: string) {
  const global =
    configYaml === undefined ? emptyGlobalConfig() : parseConfigYaml("config.yaml", configYaml).config;
  const config: ConfigDir = {
    dir: ".",
    mcp: parseMcpJson("mcp.json", MCP).mcp,
    global,
    roles: new Map(),
    agents: new Map(),
    sessions: new Map(),
    skills: new Map(),
  };
  const parsed = parseGraphFile("g", "graph.yaml", graphYaml);
  return [...parsed.diagnostics, ...checkAgent(config, parsed.graph)];
}

const node = (servers: string, key: string) =>
  `mcp_servers: ${servers}\nnodes:\n  review:\n    type: llm\n    mcp_tools:\n      ${key}: [get_*]\n`;

describe("the graph validator", () => {
  it("rejects a node key naming a server the graph does not enable, with the spec's words", () => {
    const d = check(node("[pubmed-search]", "github"));
    expect(d.map((x) => [x.severity, x.code, x.line, x.message])).toEqual([
      [
        "error",
        "E_GRAPH_SERVER_NOT_ENABLED",
        6,
        "llm node 'mcp_tools' references MCP server 'github' not enabled by this graph",
      ],
    ]);
    expect(graphServerNotEnabledMessage("x")).toBe(
      "llm node 'mcp_tools' references MCP server 'x' not enabled by this graph",
    );
  });

  it("rejects keys that name no server at all", () => {
    expect(check(node("[github]", "nope")).map((x) => x.code)).toEqual(["E_GRAPH_SERVER_NOT_ENABLED"]);
  });

  it.each([
    ["a server the graph enables", node("[github]", "github"), undefined],
    [
      "an alias of an enabled server",
      node("[github]", "git"),
      "mapping_mcp_servers:\n  git: github,gitlab\n",
    ],
    [
      "a server enabled through an alias",
      node("[git]", "gitlab"),
      "mapping_mcp_servers:\n  git: github,gitlab\n",
    ],
    ["any key under mcp_servers: [all]", node("[all]", "github"), undefined],
    ["even an unknown key under [all]", node("[all]", "nope"), undefined],
  ])("accepts %s", (_name, yaml, configYaml) => {
    expect(check(yaml, configYaml).filter((x) => x.severity === "error")).toEqual([]);
  });

  it("the spec's own graph example fails its own check: its node names github, the graph enables only pubmed-search", () => {
    const example = [
      "mcp_servers:",
      "  - pubmed-search",
      "mcp_tools:",
      "  pubmed-search: [search_*, get_*]",
      "nodes:",
      "  review:",
      "    type: llm",
      '    prompt: "{{diff}}"',
      "    tools: [mcp:github]",
      "    mcp_tools:",
      "      github: [get_*, list_*]",
      "",
    ].join("\n");
    expect(check(example).map((x) => [x.code, x.line])).toEqual([
      ["W_GRAPH_SERVER_NOT_ENABLED", 9],
      ["E_GRAPH_SERVER_NOT_ENABLED", 11],
    ]);
  });
});
