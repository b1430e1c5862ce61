import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextSelection } from "../../../../src/engine/model/configDir.js";
import {
  deadPatternDiagnostics,
  deadPatternMessage,
  deadPatterns,
  explainTool,
  type ExtraLayer,
} from "../../../../src/engine/policy/explain.js";
import { withWhitelistLayers } from "../../../../src/engine/policy/layeredGate.js";
import { layerVerdict, resolveLayers, type Layer } from "../../../../src/engine/policy/layers.js";
import { allowAllGate } from "../../../../src/engine/policy/policyGate.js";
import { buildConfig, fm, type ConfigTexts } from "./buildConfig.js";

const CATALOG = ["create_pull_request", "get_issue", "list_issues", "search_code"];
const NONE: ContextSelection = { skills: [] };

function visibleTools(
  texts: ConfigTexts,
  selection: ContextSelection,
  server = "github",
  catalog = CATALOG,
): string[] {
  const config = buildConfig(texts);
  const layers = resolveLayers(config, selection, server);
  return catalog.filter((t) => layerVerdict(layers, t).visible);
}

const labels = (layers: Layer[]): string[] => layers.map((l) => l.label);

describe("layers intersect", () => {
  it.each<[string, ConfigTexts, ContextSelection, string[]]>([
    ["no layer: every tool", { servers: { github: undefined } }, NONE, CATALOG],
    ["global only", { servers: { github: ["get_*", "list_*"] } }, NONE, ["get_issue", "list_issues"]],
    [
      "global ∧ config",
      { servers: { github: ["get_*", "list_*"] }, config: "mcp_tools:\n  github: list_*,search_*\n" },
      NONE,
      ["list_issues"],
    ],
    [
      "global ∧ role: the spec's example",
      {
        servers: { github: ["get_*", "list_*", "search_*", "create_pull_request"] },
        roles: { reviewer: fm("mcp_tools:\n  github: get_*,search_*,bogus_*") },
      },
      { role: "reviewer", skills: [] },
      ["get_issue", "search_code"],
    ],
    [
      "a session can never grant what the role blocked",
      {
        servers: { github: undefined },
        roles: { r: fm("mcp_tools:\n  github: [get_*]") },
        sessions: { s: "mcp_tools:\n  github: [get_*, list_*, create_*]\n" },
      },
      { role: "r", session: "s", skills: [] },
      ["get_issue"],
    ],
    [
      "every level at once",
      {
        servers: { github: ["*"] },
        config: "mcp_tools:\n  github: [get_*, list_*, search_*]\n",
        roles: { r: fm("mcp_tools:\n  github: [get_*, list_*, search_*]") },
        graphs: {
          g: "mcp_servers: [github]\nmcp_tools:\n  github: [get_*, list_*]\nnodes:\n  n:\n    type: llm\n    mcp_tools:\n      github: [get_*]\n",
        },
        sessions: { s: "mcp_tools:\n  github: [get_*, list_*]\n" },
        skills: { k: fm("enabled_mcp_servers: github\nmcp_tools:\n  github: [get_*, search_*]") },
      },
      { role: "r", agent: "g", session: "s", skills: ["k"], node: "n" },
      ["get_issue"],
    ],
  ])("%s", (_name, texts, selection, expected) => {
    expect(visibleTools(texts, selection)).toEqual(expected);
  });

  it("orders layers global, config, role, agent, session, skills in load order, node", () => {
    const config = buildConfig({
      servers: { github: ["*"] },
      config: "mcp_tools:\n  github: ['*']\n",
      roles: { r: fm("mcp_tools:\n  github: ['*']") },
      graphs: {
        g: "mcp_servers: [all]\nmcp_tools:\n  github: ['*']\nnodes:\n  n:\n    type: llm\n    mcp_tools:\n      github: ['*']\n",
      },
      sessions: { s: "mcp_tools:\n  github: ['*']\n" },
      skills: {
        a: fm("enabled_mcp_servers: github\nmcp_tools:\n  github: ['*']"),
        b: fm("enabled_mcp_servers: github\nmcp_tools:\n  github: ['*']"),
      },
    });
    const layers = resolveLayers(
      config,
      { role: "r", agent: "g", session: "s", skills: ["b", "a"], node: "n" },
      "github",
    );
    expect(labels(layers)).toEqual([
      "global (mcp.json)",
      "config (config.yaml)",
      "role (r)",
      "agent (g)",
      "session (s)",
      "skill (b)",
      "skill (a)",
      "node (n)",
    ]);
    expect(layers.map((l) => l.kind)).toEqual(["allowedTools", ...Array(7).fill("mcp_tools")]);
  });
});

describe("sparse maps and empty lists", () => {
  it("a level that does not mention the server contributes no layer", () => {
    const config = buildConfig({
      servers: { github: undefined, slack: undefined },
      config: "mcp_tools:\n  slack: [post_*]\n",
      roles: { r: fm("mcp_tools:\n  slack: [post_*]") },
    });
    expect(resolveLayers(config, { role: "r", skills: [] }, "github")).toEqual([]);
    expect(labels(resolveLayers(config, { role: "r", skills: [] }, "slack"))).toEqual([
      "config (config.yaml)",
      "role (r)",
    ]);
  });

  it.each<[string, ConfigTexts, ContextSelection]>([
    ["allowedTools: []", { servers: { github: [] } }, NONE],
    ["config github: []", { servers: { github: undefined }, config: "mcp_tools:\n  github: []\n" }, NONE],
    [
      "agent github: []",
      { servers: { github: undefined }, agents: { a: "mcp_tools:\n  github: []\n" } },
      { agent: "a", skills: [] },
    ],
    [
      "role bare null",
      { servers: { github: undefined }, roles: { r: fm("mcp_tools:\n  github:") } },
      { role: "r", skills: [] },
    ],
    [
      "role null",
      { servers: { github: undefined }, roles: { r: fm("mcp_tools:\n  github: null") } },
      { role: "r", skills: [] },
    ],
    [
      "skill bare null",
      {
        servers: { github: undefined },
        skills: { k: fm("enabled_mcp_servers: github\nmcp_tools:\n  github:") },
      },
      { skills: ["k"] },
    ],
  ])("%s blocks every tool", (_name, texts, selection) => {
    expect(visibleTools(texts, selection)).toEqual([]);
    const layers = resolveLayers(buildConfig(texts), selection, "github");
    expect(layers).toHaveLength(1);
    expect(layers[0]!.patterns).toEqual([]);
  });

  it("an empty map and a null map restrict nothing", () => {
    expect(visibleTools({ servers: { github: undefined }, config: "mcp_tools: {}\n" }, NONE)).toEqual(
      CATALOG,
    );
    expect(
      visibleTools(
        { servers: { github: undefined }, roles: { r: fm("mcp_tools: null") } },
        { role: "r", skills: [] },
      ),
    ).toEqual(CATALOG);
  });
});

describe("patterns", () => {
  it("match the entire name, case-sensitively", () => {
    const tools = ["get_issue", "paginated_get", "Get_issue", "get", "getx", "get_"];
    expect(visibleTools({ servers: { github: ["get_*", "get"] } }, NONE, "github", tools)).toEqual([
      "get_issue",
      "get",
      "get_",
    ]);
    expect(visibleTools({ servers: { github: ["get_?ssue"] } }, NONE, "github", tools)).toEqual([
      "get_issue",
    ]);
  });

  it("invalid patterns warn at load and match nothing, even when their text looks like a tool", () => {
    const config = buildConfig({
      servers: { github: undefined },
      config: "mcp_tools:\n  github: [42, 'get issue', '', get_issue]\n",
    });
    const layer = resolveLayers(config, NONE, "github")[0]!;
    expect(layer.patterns.map((p) => [p.source, p.valid])).toEqual([
      ["42", false],
      ["get issue", false],
      ["", false],
      ["get_issue", true],
    ]);
    expect(layer.patterns[0]!.problem).toContain("must be a string");
    expect(layerVerdict([layer], "42").visible).toBe(false);
    expect(layerVerdict([layer], "get issue").visible).toBe(false);
    expect(layerVerdict([layer], "get_issue").visible).toBe(true);
  });

  it("a layer of only invalid patterns blocks everything (fails closed)", () => {
    expect(visibleTools({ servers: { github: ["get issue"] } }, NONE)).toEqual([]);
  });
});

describe("aliases", () => {
  const servers = { github: undefined, gitlab: undefined, slack: undefined };
  const aliases = "mapping_mcp_servers:\n  git: github,gitlab\n";

  it("expand to a layer on each server they map to", () => {
    const config = buildConfig({ servers, config: `${aliases}mcp_tools:\n  git: [get_*]\n` });
    for (const server of ["github", "gitlab"]) {
      const layers = resolveLayers(config, NONE, server);
      expect(labels(layers)).toEqual(["config (config.yaml) via git"]);
      expect(layers[0]!.via).toBe("git");
    }
    expect(resolveLayers(config, NONE, "slack")).toEqual([]);
  });

  it("work in roles, agents, sessions, skills and nodes too", () => {
    const config = buildConfig({
      servers,
      config: aliases,
      roles: { r: fm("mcp_tools:\n  git: get_*") },
      agents: { a: "mcp_tools:\n  git: [get_*]\n" },
      sessions: { s: "mcp_tools:\n  git: [get_*]\n" },
      skills: { k: fm("enabled_mcp_servers: git\nmcp_tools:\n  git: [get_*]") },
    });
    expect(
      labels(resolveLayers(config, { role: "r", agent: "a", session: "s", skills: ["k"] }, "gitlab")),
    ).toEqual(["role (r) via git", "agent (a) via git", "session (s) via git", "skill (k) via git"]);
  });

  it("an alias entry and a server entry in one level are two layers that intersect", () => {
    const texts = {
      servers,
      config: `${aliases}mcp_tools:\n  github: [get_*, list_*]\n  git: [get_*, search_*]\n`,
    };
    const layers = resolveLayers(buildConfig(texts), NONE, "github");
    expect(labels(layers)).toEqual(["config (config.yaml)", "config (config.yaml) via git"]);
    expect(visibleTools(texts, NONE)).toEqual(["get_issue"]);
  });

  it("an alias mapped to [] blocks its servers even when the level also lists the server", () => {
    const texts = { servers, config: `${aliases}mcp_tools:\n  github: [get_*]\n  git: []\n` };
    expect(visibleTools(texts, NONE)).toEqual([]);
  });
});

describe("level-specific rules", () => {
  it("sessions do not inherit the role's map: the role layer applies on its own", () => {
    const texts: ConfigTexts = {
      servers: { github: undefined },
      roles: { r: fm("mcp_tools:\n  github: get_*") },
      sessions: { empty: "{}\n", own: "mcp_tools:\n  github: [list_*]\n" },
    };
    const config = buildConfig(texts);
    expect(labels(resolveLayers(config, { role: "r", session: "empty", skills: [] }, "github"))).toEqual([
      "role (r)",
    ]);
    expect(labels(resolveLayers(config, { role: "r", session: "own", skills: [] }, "github"))).toEqual([
      "role (r)",
      "session (own)",
    ]);
    expect(labels(resolveLayers(config, { session: "own", skills: [] }, "github"))).toEqual([
      "session (own)",
    ]);
  });

  it("a skill's entries apply only to servers the skill enables", () => {
    const config = buildConfig({
      servers: { github: undefined, slack: undefined },
      skills: {
        triage: fm("enabled_mcp_servers: [github]\nmcp_tools:\n  github: [get_*]\n  slack: [post_*]"),
        silent: fm("mcp_tools:\n  github: [get_*]"),
        every: fm("enabled_mcp_servers: all\nmcp_tools:\n  slack: [post_*]"),
      },
    });
    expect(labels(resolveLayers(config, { skills: ["triage"] }, "github"))).toEqual(["skill (triage)"]);
    expect(resolveLayers(config, { skills: ["triage"] }, "slack")).toEqual([]);
    expect(resolveLayers(config, { skills: ["silent"] }, "github")).toEqual([]);
    expect(labels(resolveLayers(config, { skills: ["every"] }, "slack"))).toEqual(["skill (every)"]);
  });

  it("a graph's map is the agent layer for every node; a node narrows it further", () => {
    const config = buildConfig({
      servers: { github: undefined },
      graphs: {
        g: "mcp_servers: [github]\nmcp_tools:\n  github: [get_*, list_*]\nnodes:\n  review:\n    type: llm\n    mcp_tools:\n      github: [get_*]\n  other:\n    type: llm\n",
      },
    });
    expect(labels(resolveLayers(config, { agent: "g", skills: [], node: "review" }, "github"))).toEqual([
      "agent (g)",
      "node (review)",
    ]);
    expect(labels(resolveLayers(config, { agent: "g", skills: [], node: "other" }, "github"))).toEqual([
      "agent (g)",
    ]);
    expect(labels(resolveLayers(config, { agent: "g", skills: [] }, "github"))).toEqual(["agent (g)"]);
  });

  it("refuses unknown servers and selections that are not loaded", () => {
    const config = buildConfig({ servers: { github: undefined } });
    expect(() => resolveLayers(config, NONE, "nope")).toThrow(
      expect.objectContaining({ code: "E_UNKNOWN_SERVER" }),
    );
    expect(() => resolveLayers(config, { role: "nope", skills: [] }, "github")).toThrow(
      expect.objectContaining({ code: "E_SELECTION" }),
    );
    expect(() => resolveLayers(config, { node: "n", skills: [] }, "github")).toThrow(
      expect.objectContaining({ code: "E_SELECTION" }),
    );
  });
});

describe("layerVerdict", () => {
  const config = buildConfig({
    servers: { github: ["get_*", "list_*", "search_*", "create_pull_request"] },
    roles: { reviewer: fm("mcp_tools:\n  github: get_*,search_*,bogus_*") },
  });
  const layers = resolveLayers(config, { role: "reviewer", skills: [] }, "github");

  it("names the first layer that hid the tool, with its patterns, and no reason code", () => {
    const v = layerVerdict(layers, "list_issues");
    expect(v).toMatchObject({
      visible: false,
      explain: false,
      code: null,
      rule: {
        layer: "role (reviewer)",
        kind: "mcp_tools",
        value: "get_* | search_* | bogus_*",
        at: { file: "roles/reviewer.md", line: 3 },
      },
    });
    expect(layerVerdict(layers, "delete_repo").rule).toMatchObject({
      layer: "global (mcp.json)",
      kind: "allowedTools",
    });
  });

  it("a visible tool cites the last layer's matching pattern", () => {
    expect(layerVerdict(layers, "get_issue")).toMatchObject({
      visible: true,
      code: null,
      rule: { layer: "role (reviewer)", kind: "mcp_tools", value: "get_*" },
    });
    expect(layerVerdict([], "x")).toMatchObject({
      visible: true,
      rule: null,
      reason: "no whitelist layer applies",
    });
  });

  it("an empty layer is shown as []", () => {
    const blocked = resolveLayers(buildConfig({ servers: { github: [] } }), NONE, "github");
    expect(layerVerdict(blocked, "get_issue").rule?.value).toBe("[]");
  });

  it("withWhitelistLayers hides first, then asks the inner gate", () => {
    const gate = withWhitelistLayers(layers, allowAllGate());
    expect(gate.visibility({ name: "list_issues" }).visible).toBe(false);
    expect(gate.visibility({ name: "get_issue" })).toMatchObject({
      visible: true,
      reason: "no policy: all tools allowed",
    });
    expect(gate.policyDigest).toBeNull();
  });
});

describe("explainTool and deadPatterns", () => {
  const config = buildConfig({
    servers: { github: ["get_*", "list_*", "search_*", "create_pull_request"] },
    roles: { reviewer: fm("mcp_tools:\n  github: get_*,search_*,bogus_*") },
  });
  const layers = resolveLayers(config, { role: "reviewer", skills: [] }, "github");

  it("gives each layer's first matching pattern, and the first layer that hid", () => {
    const ok = explainTool(layers, "get_issue");
    expect(ok.visible).toBe(true);
    expect(ok.steps.map((s) => [s.level, s.matched])).toEqual([
      ["global", "get_*"],
      ["role", "get_*"],
    ]);
    const hidden = explainTool(layers, "create_pull_request");
    expect(hidden.visible).toBe(false);
    expect(hidden.hiddenBy?.label).toBe("role (reviewer)");
    expect(hidden.steps.map((s) => s.allowed)).toEqual([true, false]);
  });

  it("extra layers (the policy file) come after the whitelist layers", () => {
    const policy: ExtraLayer = {
      label: "policy (p.yaml)",
      level: "policy",
      summary: "deny search_*",
      judge: (tool) =>
        tool.startsWith("search_")
          ? { allowed: false, matched: null }
          : { allowed: true, matched: "allow *" },
    };
    const e = explainTool(layers, "search_code", [policy]);
    expect(e.hiddenBy?.label).toBe("policy (p.yaml)");
    expect(explainTool(layers, "get_issue", [policy]).steps.map((s) => s.matched)).toEqual([
      "get_*",
      "get_*",
      "allow *",
    ]);
  });

  it("reproduces the spec's dead pattern", () => {
    const dead = deadPatterns(layers, CATALOG);
    expect(dead.map(deadPatternMessage)).toEqual(["role pattern 'bogus_*' matches no allowed tools"]);
    expect(dead[0]!.pattern.at).toMatchObject({ file: "roles/reviewer.md", line: 3 });
  });

  it.each<[string, string[], string, string[]]>([
    [
      "first layer: a pattern matching nothing in the catalog",
      ["get_*", "delete_*"],
      "",
      ["global pattern 'delete_*' matches no allowed tools"],
    ],
    [
      "a later pattern matching only tools an earlier layer hid",
      ["get_*"],
      "list_*,get_*",
      ["config pattern 'list_*' matches no allowed tools"],
    ],
    [
      "an invalid pattern is dead",
      ["get_*", "get issue"],
      "",
      ["global pattern 'get issue' matches no allowed tools"],
    ],
    ["none when every pattern matches an allowed tool", ["get_*", "list_*"], "list_*", []],
    [
      "an empty layer has no patterns to be dead",
      [],
      "get_*",
      ["config pattern 'get_*' matches no allowed tools"],
    ],
  ])("%s", (_name, allowed, configPatterns, expected) => {
    const texts: ConfigTexts = { servers: { github: allowed } };
    if (configPatterns !== "") texts.config = `mcp_tools:\n  github: ${configPatterns}\n`;
    const ls = resolveLayers(buildConfig(texts), NONE, "github");
    expect(deadPatterns(ls, CATALOG).map(deadPatternMessage)).toEqual(expected);
  });
});

describe("properties", () => {
  const name = fc.stringMatching(/^[a-c_]{0,4}$/);
  const pattern = fc.stringMatching(/^[a-c_*?]{1,4}$/);
  const layer = fc.array(pattern, { maxLength: 3 });

  it("a tool is visible exactly when every layer has a matching pattern, and adding a layer only narrows", () => {
    fc.assert(
      fc.property(
        fc.array(layer, { maxLength: 4 }),
        layer,
        fc.array(name, { maxLength: 8 }),
        (lists, extra, catalog) => {
          const texts: ConfigTexts = { servers: { s: lists[0] } };
          const rest = lists.slice(1);
          const toYaml = (ps: string[]) => `[${ps.map((p) => JSON.stringify(p)).join(", ")}]`;
          if (rest.length > 0) texts.config = `mcp_tools:\n  s: ${toYaml(rest[0]!)}\n`;
          const config = buildConfig(texts);
          const layers = resolveLayers(config, NONE, "s");
          for (const tool of catalog) {
            const expected = layers.every((l) => l.patterns.some((p) => p.matcher.matches(tool)));
            expect(layerVerdict(layers, tool).visible).toBe(expected);
            expect(explainTool(layers, tool).visible).toBe(expected);
          }
          const narrowed = [...resolveLayers(buildConfig({ servers: { s: extra } }), NONE, "s"), ...layers];
          for (const tool of catalog) {
            if (layerVerdict(narrowed, tool).visible) expect(layerVerdict(layers, tool).visible).toBe(true);
          }
        },
      ),
    );
  });
});

describe("deadPatternDiagnostics", () => {
  it("names file and line of each dead pattern", () => {
    const config = buildConfig({
      servers: { github: ["get_*"] },
      roles: { reviewer: fm("mcp_tools:\n  github: get_*,bogus_*") },
    });
    const layers = resolveLayers(config, { role: "reviewer", skills: [] }, "github");
    expect(deadPatternDiagnostics("github", deadPatterns(layers, CATALOG))).toEqual([
      {
        severity: "warning",
        code: "W_DEAD_PATTERN",
        message: "role pattern 'bogus_*' matches no allowed tools on 'github' (role (reviewer))",
        file: "roles/reviewer.md",
        line: 3,
        column: 17,
        path: "mcp_tools.github",
      },
    ]);
  });
});
