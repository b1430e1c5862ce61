import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { infoViewJson, buildInfoView, renderInfoView } from "../../../src/cli/render/infoView.js";
import { listViewJson, renderListView } from "../../../src/cli/render/listView.js";
import { loadConfigDir } from "../../../src/config/configDir.js";
import type { ContextSelection } from "../../../src/engine/model/configDir.js";
import { findServer } from "../../../src/engine/model/configDir.js";
import { buildServerList } from "../../../src/engine/policy/enabledServers.js";
import type { ExtraLayer } from "../../../src/engine/policy/explain.js";
import { resolveLayers } from "../../../src/engine/policy/layers.js";
import { buildConfig, fm } from "../engine/policy/buildConfig.js";

const FIXTURES = join("test", "fixtures", "configdir");
const golden = (name: string): string => readFileSync(join(FIXTURES, "golden", name), "utf8");

function infoFor(
  dir: string,
  selection: ContextSelection,
  server: string,
  catalog: string[],
  extras: ExtraLayer[] = [],
) {
  const { config, diagnostics } = loadConfigDir(join(FIXTURES, dir), selection);
  expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return buildInfoView({
    server,
    transport: findServer(config, server)!.transport,
    capabilities: extras.length > 0 ? ["tools", "resources"] : ["tools"],
    layers: resolveLayers(config, selection, server),
    extras,
    catalog,
  });
}

const SPEC_CATALOG = ["list_issues", "search_code", "get_issue", "create_pull_request"];

describe(".info mcp-server view", () => {
  it("reproduces the spec's example byte for byte (golden)", () => {
    const view = infoFor("spec", { role: "reviewer", skills: [] }, "github", SPEC_CATALOG);
    expect(renderInfoView(view)).toBe(golden("info-spec.txt"));
  });

  it("shows every level, aliases and the policy as a layer after the whitelists (golden)", () => {
    const policy: ExtraLayer = {
      label: "policy (policy.yaml)",
      level: "policy",
      summary: "deny get_issue",
      judge: (tool) =>
        tool === "get_issue" ? { allowed: false, matched: null } : { allowed: true, matched: "*" },
    };
    const catalog = [
      "create_pull_request",
      "delete_repo",
      "get_issue",
      "get_me",
      "list_issues",
      "search_code",
    ];
    const view = infoFor("full", { role: "reviewer", session: "work", skills: [] }, "github", catalog, [
      policy,
    ]);
    expect(renderInfoView(view)).toBe(golden("info-full.txt"));
  });

  it("with no active filter: the (none — all tools allowed) header and bare ✓ rows (golden)", () => {
    const view = buildInfoView({
      server: "everything",
      transport: "stdio",
      capabilities: ["tools", "resources", "prompts"],
      layers: [],
      catalog: ["echo", "longRunningOperation", "add"],
    });
    expect(renderInfoView(view)).toBe(golden("info-none.txt"));
  });

  it("an empty layer reads [] and hides everything; an empty catalog has no rows", () => {
    const config = buildConfig({ servers: { github: [] } });
    const layers = resolveLayers(config, { skills: [] }, "github");
    const text = renderInfoView(
      buildInfoView({ server: "github", transport: "stdio", capabilities: [], layers, catalog: ["a"] }),
    );
    expect(text).toBe(
      [
        "server         github (stdio, connected)",
        "capabilities   none",
        "filter layers  global (mcp.json): []",
        "",
        "tools (0 allowed / 1 total)",
        "  ✗ a   hidden by global layer",
        "",
      ].join("\n"),
    );
    const empty = renderInfoView(
      buildInfoView({ server: "github", transport: "stdio", capabilities: ["tools"], layers, catalog: [] }),
    );
    expect(empty.endsWith("tools (0 allowed / 0 total)\n")).toBe(true);
  });

  it("JSON form carries layers with sources, per-tool matches and dead patterns", () => {
    const view = infoFor("spec", { role: "reviewer", skills: [] }, "github", SPEC_CATALOG);
    const json = infoViewJson(view);
    expect(json).toMatchObject({
      server: "github",
      transport: "http",
      status: "connected",
      capabilities: ["tools"],
      tools: { allowed: 2, total: 4 },
    });
    const layers = json["layers"] as Record<string, unknown>[];
    expect(layers.map((l) => [l["label"], l["kind"], l["line"]])).toEqual([
      ["global (mcp.json)", "allowedTools", 6],
      ["role (reviewer)", "mcp_tools", 4],
    ]);
    const rows = (json["tools"] as { rows: Record<string, unknown>[] }).rows;
    expect(rows[0]).toEqual({
      name: "create_pull_request",
      visible: false,
      matches: [{ layer: "global (mcp.json)", level: "global", pattern: "create_pull_request" }],
      hiddenBy: { layer: "role (reviewer)", level: "role" },
    });
    expect(json["deadPatterns"]).toEqual([
      {
        layer: "role (reviewer)",
        level: "role",
        pattern: "bogus_*",
        message: "role pattern 'bogus_*' matches no allowed tools",
        file: join(FIXTURES, "spec", "roles", "reviewer.md"),
        line: 4,
        column: 26,
      },
    ]);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("invalid patterns are shown as written and reported dead", () => {
    const config = buildConfig({
      servers: { github: undefined },
      roles: { r: fm("mcp_tools:\n  github: [get_*, 'get issue']") },
    });
    const view = buildInfoView({
      server: "github",
      transport: "stdio",
      capabilities: ["tools"],
      layers: resolveLayers(config, { role: "r", skills: [] }, "github"),
      catalog: ["get_issue"],
    });
    const text = renderInfoView(view);
    expect(text).toContain("filter layers  role (r): get_* | get issue\n");
    expect(text).toContain("⚠ role pattern 'get issue' matches no allowed tools\n");
  });
});

describe(".list mcp-servers view", () => {
  it("reproduces the spec's example (golden)", () => {
    const { config } = loadConfigDir(join(FIXTURES, "spec"), { skills: [] });
    expect(renderListView(buildServerList(config, { skills: [] }))).toBe(golden("list-spec.txt"));
  });

  it("includes aliases, tagged like servers (golden)", () => {
    const selection = { role: "reviewer", skills: [] };
    const { config } = loadConfigDir(join(FIXTURES, "full"), selection);
    expect(renderListView(buildServerList(config, selection))).toBe(golden("list-full.txt"));
  });

  it("JSON form", () => {
    const { config } = loadConfigDir(join(FIXTURES, "full"), { skills: [] });
    const json = listViewJson(buildServerList(config, { skills: [] }));
    expect((json["servers"] as unknown[]).slice(-2)).toEqual([
      { name: "git", kind: "alias", servers: ["github", "gitlab"], enabled: true, filtered: true },
      { name: "code", kind: "alias", servers: ["github", "fs"], enabled: true, filtered: true },
    ]);
    expect(renderListView([])).toBe("MCP servers:\n  (none configured)\n");
  });
});
