import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextSelection } from "../../../../src/engine/model/configDir.js";
import { parseSessionFile, serializeSessionFile } from "../../../../src/config/sessionFile.js";
import { resolveLayers } from "../../../../src/engine/policy/layers.js";
import {
  applySet,
  clearMap,
  GRAPH_AGENT_SET_MESSAGE,
  innermostWritableLevel,
  levelMap,
  parseSetTarget,
  parseSetValue,
  setPatternNotes,
  setTargetProblem,
  withLevelMap,
} from "../../../../src/engine/policy/toolsSet.js";
import { buildConfig, fm } from "./buildConfig.js";

const config = buildConfig({
  servers: {
    github: ["get_*", "list_*", "search_*", "create_pull_request"],
    slack: undefined,
    gitlab: undefined,
  },
  config: "enabled_mcp_servers: github\nmapping_mcp_servers:\n  git: github,gitlab\n",
  roles: { r: fm("mcp_tools:\n  github: [get_*, list_*]") },
  agents: { a: "mcp_servers: [github]\n" },
  graphs: { g: "mcp_servers: [github]\nnodes: {}\n" },
  sessions: { s: "{}\n" },
});

describe("innermostWritableLevel", () => {
  it.each<[ContextSelection, string]>([
    [{ skills: [] }, "config"],
    [{ role: "r", skills: [] }, "role"],
    [{ role: "r", agent: "a", skills: [] }, "agent"],
    [{ role: "r", agent: "a", session: "s", skills: [] }, "session"],
    [{ session: "s", skills: [] }, "session"],
  ])("%j → %s", (selection, level) => {
    expect(innermostWritableLevel(config, selection)).toMatchObject({ ok: true, level });
  });

  it("graph agents reject the command with the spec's message, even inside a session", () => {
    for (const selection of [
      { agent: "g", skills: [] },
      { agent: "g", session: "s", skills: [] },
    ]) {
      expect(innermostWritableLevel(config, selection)).toEqual({
        ok: false,
        message: GRAPH_AGENT_SET_MESSAGE,
      });
    }
    expect(GRAPH_AGENT_SET_MESSAGE).toBe(
      "Graph agents define MCP tool filters per-node via 'mcp_tools:' in graph.yaml",
    );
  });
});

describe("applySet and clearMap", () => {
  const base = levelMap(config, { role: "r", skills: [] }, "role");

  it("sets a server's patterns, replacing an entry in place", () => {
    const added = applySet(base, "slack", ["post_*"]);
    expect(added?.map((e) => [e.key, e.patterns.map((p) => p.source)])).toEqual([
      ["github", ["get_*", "list_*"]],
      ["slack", ["post_*"]],
    ]);
    const replaced = applySet(added, "github", ["search_*"]);
    expect(replaced?.map((e) => e.key)).toEqual(["github", "slack"]);
    expect(replaced?.[0]?.patterns.map((p) => p.source)).toEqual(["search_*"]);
    expect(base?.[0]?.patterns.map((p) => p.source)).toEqual(["get_*", "list_*"]);
  });

  it("null removes the entry (no restriction from this level), it does not deny all", () => {
    const removed = applySet(base, "github", null);
    expect(removed).toEqual([]);
    const next = withLevelMap(config, { role: "r", skills: [] }, "role", removed);
    expect(resolveLayers(next, { role: "r", skills: [] }, "github").map((l) => l.label)).toEqual([
      "global (mcp.json)",
    ]);
    expect(applySet(null, "github", null)).toBeNull();
  });

  it("clearing the whole map leaves the level without a map", () => {
    const next = withLevelMap(config, { role: "r", skills: [] }, "role", clearMap());
    expect(levelMap(next, { role: "r", skills: [] }, "role")).toBeNull();
  });

  it("a session map set with .set is a session layer; the role's map stays its own layer", () => {
    const selection = { role: "r", session: "s", skills: [] };
    const next = withLevelMap(
      config,
      selection,
      "session",
      applySet(levelMap(config, selection, "session"), "github", ["get_*"]),
    );
    expect(resolveLayers(next, selection, "github").map((l) => l.label)).toEqual([
      "global (mcp.json)",
      "role (r)",
      "session (s)",
    ]);
    expect(levelMap(next, selection, "role")).toEqual(levelMap(config, selection, "role"));
  });

  it("withLevelMap refuses graph agents", () => {
    expect(() => withLevelMap(config, { agent: "g", skills: [] }, "agent", null)).toThrow(
      GRAPH_AGENT_SET_MESSAGE,
    );
  });
});

describe("parsing the command", () => {
  it.each([
    ["get_*,list_*", { kind: "patterns", patterns: ["get_*", "list_*"] }],
    ["get_issue", { kind: "patterns", patterns: ["get_issue"] }],
    ["null", { kind: "remove" }],
  ])("%j", (text, expected) => {
    expect(parseSetValue(text)).toEqual(expected);
  });

  it.each(["[]", "[ ]", "[,]", '""', "''", "", '[""]'])(
    "refuses the deny-all list %j with a hint",
    (text) => {
      const r = parseSetValue(text, "github");
      expect(r).toMatchObject({ kind: "error", code: "E_SET_DENY_ALL" });
      if (r.kind !== "error") return;
      expect(r.message).toContain("deny-all empty list, which .set cannot express");
      expect(r.hint).toContain("deny-all comes from a file");
      expect(r.hint).toContain("'github: []' entry under mcp_tools");
      expect(r.hint).toContain("a bare 'github:' (null) in a role's or skill's YAML front matter");
    },
  );

  it("refuses a bracketed list, hinting the comma-separated form", () => {
    const r = parseSetValue("[get_*, 'list_*']", "github");
    expect(r).toMatchObject({ kind: "error", code: "E_SET_VALUE" });
    if (r.kind === "error") expect(r.hint).toBe("write `.set mcp_tools.github get_*,list_*`");
  });

  it("keeps brackets that do not wrap the whole value as pattern text", () => {
    expect(parseSetValue("get_[x]")).toEqual({ kind: "patterns", patterns: ["get_[x]"] });
  });

  it.each([
    ["get_*, list_*", "contains whitespace"],
    ["get_*,,list_*", "must not be empty"],
    ["get_*,", "must not be empty"],
  ])("rejects %j", (text, message) => {
    const r = parseSetValue(text);
    expect(r.kind).toBe("error");
    if (r.kind === "error") expect(r.message).toContain(message);
  });

  it("reads the setting name", () => {
    expect(parseSetTarget("mcp_tools")).toEqual({ kind: "map" });
    expect(parseSetTarget("mcp_tools.github")).toEqual({ kind: "server", server: "github" });
    expect(parseSetTarget("mcp_tools.").kind).toBe("error");
    expect(parseSetTarget("temperature").kind).toBe("error");
  });

  it("the server must be configured (or an alias) and enabled", () => {
    const sel = { skills: [] };
    expect(setTargetProblem(config, sel, "github")).toBeNull();
    expect(setTargetProblem(config, sel, "git")).toBeNull();
    expect(setTargetProblem(config, sel, "slack")).toBe(
      "MCP server 'slack' is not enabled in the current context",
    );
    expect(setTargetProblem(config, sel, "nope")).toBe(
      "MCP server 'nope' is not configured in mcp.json (nor a mapping_mcp_servers alias)",
    );
  });
});

describe("setPatternNotes", () => {
  const catalogs = new Map([["github", ["create_pull_request", "get_issue", "list_issues", "search_code"]]]);

  it("prints the spec's note for a pattern that matches no allowed tool", () => {
    const sel = { skills: [] };
    const next = withLevelMap(config, sel, "config", applySet(null, "github", ["get*_", "search_*"]));
    expect(setPatternNotes(next, sel, "config", "github", ["get*_", "search_*"], catalogs)).toEqual([
      "Note: pattern 'get*_' matches no allowed tools on 'github'.",
    ]);
  });

  it("checks against what the layers before it allow", () => {
    const sel = { role: "r", session: "s", skills: [] };
    // The role allows get_* and list_* only, so search_* can match nothing at the session level.
    const next = withLevelMap(config, sel, "session", applySet(null, "github", ["get_*", "search_*"]));
    expect(setPatternNotes(next, sel, "session", "github", ["get_*", "search_*"], catalogs)).toEqual([
      "Note: pattern 'search_*' matches no allowed tools on 'github'.",
    ]);
  });

  it("prints nothing without a live catalog", () => {
    const sel = { skills: [] };
    const next = withLevelMap(config, sel, "config", applySet(null, "github", ["zzz"]));
    expect(setPatternNotes(next, sel, "config", "github", ["zzz"], new Map())).toEqual([]);
  });
});

describe("session persistence", () => {
  it("writes lists that read back as the same map, keeping other content and comments", () => {
    const map = applySet(null, "github", ["get_*", "*_issue", "list_?"]);
    const text = serializeSessionFile("# my session\nmcp_tools:\n  slack: [a]\n", map);
    expect(text).toBe('# my session\nmcp_tools:\n  github: [ get_*, "*_issue", list_? ]\n');
    const back = parseSessionFile("s", "s.yaml", text);
    expect(back.diagnostics).toEqual([]);
    expect(back.session.mcpTools?.map((e) => [e.key, e.patterns.map((p) => p.source)])).toEqual([
      ["github", ["get_*", "*_issue", "list_?"]],
    ]);
  });

  it("an empty map removes mcp_tools", () => {
    expect(serializeSessionFile("mcp_tools:\n  github: [a]\n", null)).toBe("{}\n");
    expect(serializeSessionFile("other: 1\nmcp_tools:\n  github: [a]\n", [])).toBe("other: 1\n");
    expect(serializeSessionFile(null, applySet(null, "github", ["a"]))).toBe("mcp_tools:\n  github: [ a ]\n");
  });

  it("refuses to rewrite a non-string pattern whose text would become a valid pattern", () => {
    const parsed = parseSessionFile("s", "s.yaml", "mcp_tools:\n  github: [42]\n");
    expect(() => serializeSessionFile("mcp_tools:\n  github: [42]\n", parsed.session.mcpTools)).toThrow(
      expect.objectContaining({ code: "E_SESSION_WRITE" }),
    );
  });

  it("keeps anchors and merges it does not touch; refuses a write a merged mcp_tools would contradict", () => {
    const shared = "base: &b { note: x }\nother:\n  <<: *b\n";
    expect(serializeSessionFile(shared, applySet(null, "github", ["a"]))).toBe(
      `${shared}mcp_tools:\n  github: [ a ]\n`,
    );
    // mcp_tools comes from the merged map: writing it would override a merged setting, removing it would not.
    const merged = "base: &b\n  mcp_tools: { github: [a] }\n<<: *b\n";
    for (const map of [applySet(null, "github", ["b"]), null]) {
      expect(() => serializeSessionFile(merged, map)).toThrow(
        expect.objectContaining({ code: "E_SESSION_WRITE" }),
      );
    }
  });

  it("round-trips any valid patterns (property)", () => {
    const piece = fc.stringMatching(/^[A-Za-z0-9_*?:#&!|>'"%@`{}[\]-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), fc.array(piece, { maxLength: 5 }), {
          maxKeys: 4,
        }),
        (plain) => {
          let map = null;
          for (const [k, v] of Object.entries(plain)) map = applySet(map, k, v);
          const back = parseSessionFile("s", "s.yaml", serializeSessionFile(null, map)).session.mcpTools;
          const expected = Object.entries(plain).map(([k, v]) => [k, v]);
          expect((back ?? []).map((e) => [e.key, e.patterns.map((p) => p.source)])).toEqual(expected);
        },
      ),
    );
  });
});
