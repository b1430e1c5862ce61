import { describe, expect, it } from "vitest";
import type { ContextSelection } from "../../../../src/engine/model/configDir.js";
import {
  buildServerList,
  enabledServers,
  isEnabled,
  lookupServer,
} from "../../../../src/engine/policy/enabledServers.js";
import { buildConfig, fm, type ConfigTexts } from "./buildConfig.js";

const servers = { github: undefined, slack: undefined, gitlab: undefined, fs: undefined };
const aliases = "mapping_mcp_servers:\n  git: github,gitlab\n";

describe("enabledServers", () => {
  it.each<[string, ConfigTexts, ContextSelection, string[], string]>([
    ["no config.yaml: none", { servers }, { skills: [] }, [], "default"],
    [
      "enabled_mcp_servers: null: none",
      { servers, config: "enabled_mcp_servers: null\n" },
      { skills: [] },
      [],
      "default",
    ],
    [
      "all",
      { servers, config: "enabled_mcp_servers: all\n" },
      { skills: [] },
      ["github", "slack", "gitlab", "fs"],
      "config (config.yaml)",
    ],
    [
      "a comma string, in mcp.json order",
      { servers, config: "enabled_mcp_servers: fs,github\n" },
      { skills: [] },
      ["github", "fs"],
      "config (config.yaml)",
    ],
    [
      "an alias expands",
      { servers, config: `${aliases}enabled_mcp_servers: [git]\n` },
      { skills: [] },
      ["github", "gitlab"],
      "config (config.yaml)",
    ],
    [
      "the role overrides config.yaml",
      { servers, config: "enabled_mcp_servers: all\n", roles: { r: fm("enabled_mcp_servers: slack") } },
      { role: "r", skills: [] },
      ["slack"],
      "role (r)",
    ],
    [
      "a role that does not say keeps config.yaml's",
      { servers, config: "enabled_mcp_servers: slack\n", roles: { r: fm("mcp_tools: null") } },
      { role: "r", skills: [] },
      ["slack"],
      "config (config.yaml)",
    ],
    [
      "the agent overrides the role",
      { servers, roles: { r: fm("enabled_mcp_servers: slack") }, agents: { a: "mcp_servers: [fs]\n" } },
      { role: "r", agent: "a", skills: [] },
      ["fs"],
      "agent (a)",
    ],
    [
      "a graph without mcp_servers enables none",
      { servers, config: "enabled_mcp_servers: all\n", graphs: { g: "nodes: {}\n" } },
      { agent: "g", skills: [] },
      [],
      "agent (g)",
    ],
    [
      "a graph node with tools narrows to its mcp: servers",
      {
        servers,
        graphs: { g: "mcp_servers: [all]\nnodes:\n  n:\n    type: llm\n    tools: [mcp:slack, web]\n" },
      },
      { agent: "g", node: "n", skills: [] },
      ["slack"],
      "node (n)",
    ],
    [
      "a skill adds the servers it enables",
      { servers, config: "enabled_mcp_servers: slack\n", skills: { k: fm("enabled_mcp_servers: fs") } },
      { skills: ["k"] },
      ["slack", "fs"],
      "config (config.yaml)",
    ],
  ])("%s", (_name, texts, selection, expected, decidedBy) => {
    expect(enabledServers(buildConfig(texts), selection)).toEqual({ servers: expected, decidedBy });
  });

  it("an alias is enabled when any server it maps to is", () => {
    const config = buildConfig({ servers, config: `${aliases}enabled_mcp_servers: github\n` });
    expect(isEnabled(config, { skills: [] }, "git")).toBe(true);
    expect(isEnabled(config, { skills: [] }, "gitlab")).toBe(false);
  });
});

describe("lookupServer", () => {
  const config = buildConfig({ servers, config: `${aliases}enabled_mcp_servers: github\n` });
  it.each([
    ["github", true, undefined],
    ["slack", false, "MCP server 'slack' is configured but not enabled in the current context"],
    ["nope", false, "MCP server 'nope' is not configured in mcp.json"],
    ["git", false, "'git' is an alias of github, gitlab; name one server"],
  ] as const)("%s", (name, ok, message) => {
    const r = lookupServer(config, { skills: [] }, name);
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.message).toBe(message);
  });
});

describe("buildServerList", () => {
  it("lists servers then aliases, with enabled and filtered", () => {
    const config = buildConfig({
      servers: { github: ["get_*"], slack: undefined, gitlab: undefined, fs: undefined },
      config: `${aliases}enabled_mcp_servers: github,fs\nmcp_tools:\n  fs: [read_*]\n`,
    });
    expect(
      buildServerList(config, { skills: [] }).map((r) => [r.name, r.kind, r.enabled, r.filtered]),
    ).toEqual([
      ["github", "server", true, true],
      ["slack", "server", false, false],
      ["gitlab", "server", false, false],
      ["fs", "server", true, true],
      ["git", "alias", true, true],
    ]);
    expect(
      buildServerList(config, { skills: [] }, (s) => s === "slack").find((r) => r.name === "slack")?.filtered,
    ).toBe(true);
  });
});
