import { describe, expect, it } from "vitest";
import { buildInfoView, renderInfoView } from "../../../../src/cli/render/infoView.js";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import {
  policyExtraLayer,
  policyHasNameRules,
  policySummary,
  type ActivePolicy,
} from "../../../../src/engine/policy/policyLayer.js";
import { composeVisibleTools, serverFilter } from "../../../../src/engine/policy/serverFilter.js";
import { buildConfig, fm } from "./buildConfig.js";

function policy(yaml: string, shownPath = "policy.yaml"): ActivePolicy {
  const { policy, diagnostics } = loadPolicyText(shownPath, yaml);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return { compiled: compilePolicy(policy), shownPath };
}

const ALLOW_AND_DENY = `version: "2.0"\ntools:\n  allow: ["get_*", "search_code"]\n  deny: ["get_secret"]\n`;
const DENY_ONLY = `version: "2.0"\ntools:\n  deny: ["delete_*"]\n`;
const EMPTY_ALLOW = `version: "2.0"\ntools:\n  allow: []\n`;
const NO_NAME_RULES = `version: "2.0"\nlimits:\n  max_tool_calls_total: 5\n`;

const visible = (f: ReturnType<typeof serverFilter>, tool: string): boolean =>
  f.gate.visibility({ name: tool }).visible;

describe("the policy as an extra layer", () => {
  it.each([
    [ALLOW_AND_DENY, "allow get_* | search_code; deny get_secret", true],
    [DENY_ONLY, "deny delete_*", true],
    [EMPTY_ALLOW, "allow []", true],
    [NO_NAME_RULES, "(no tool name rules)", false],
  ])("summary of %j", (yaml, summary, hasRules) => {
    const p = policy(yaml);
    expect(policySummary(p.compiled.policy)).toBe(summary);
    expect(policyHasNameRules(p.compiled.policy)).toBe(hasRules);
  });

  it.each([
    [ALLOW_AND_DENY, "get_issue", { allowed: true, matched: "get_*" }],
    [ALLOW_AND_DENY, "search_code", { allowed: true, matched: "search_code" }],
    [ALLOW_AND_DENY, "get_secret", { allowed: false, matched: null }],
    [ALLOW_AND_DENY, "list_issues", { allowed: false, matched: null }],
    [DENY_ONLY, "list_issues", { allowed: true, matched: "*" }],
    [DENY_ONLY, "delete_repo", { allowed: false, matched: null }],
    [EMPTY_ALLOW, "anything", { allowed: false, matched: null }],
  ])("judges %#: %s", (yaml, tool, verdict) => {
    const layer = policyExtraLayer(policy(yaml, "p.yaml"));
    expect(layer.label).toBe("policy (p.yaml)");
    expect(layer.level).toBe("policy");
    expect(layer.judge(tool)).toEqual(verdict);
  });
});

describe("serverFilter: layers, then the policy", () => {
  const config = buildConfig({
    servers: { github: ["get_*", "list_*", "search_*"], slack: undefined },
    config: "enabled_mcp_servers: all\n",
    roles: { reviewer: fm("mcp_tools:\n  github: get_*,search_*") },
  });
  const selection = { role: "reviewer", skills: [] };

  it("without a policy: the whitelist layers over allow-all", () => {
    const f = serverFilter(config, selection, "github", null);
    expect(f.layers.map((l) => l.label)).toEqual(["global (mcp.json)", "role (reviewer)"]);
    expect(f.extras).toEqual([]);
    expect(f.filtered).toBe(true);
    expect(f.gate.policyDigest).toBeNull();
    expect(
      ["get_issue", "list_issues", "search_code", "create_pull_request"].filter((t) => visible(f, t)),
    ).toEqual(["get_issue", "search_code"]);
  });

  it("a whitelist layer hides before the policy is asked, and names itself", () => {
    const f = serverFilter(config, selection, "github", policy(ALLOW_AND_DENY));
    const hidden = f.gate.visibility({ name: "list_issues" });
    expect(hidden.visible).toBe(false);
    expect(hidden.code).toBeNull();
    expect(hidden.rule?.layer).toBe("role (reviewer)");
    const byPolicy = f.gate.visibility({ name: "get_secret" });
    expect(byPolicy).toMatchObject({ visible: false, code: "E_TOOL_DENIED" });
    expect(visible(f, "get_issue")).toBe(true);
    expect(f.gate.decideCall("get_issue", {}, { requests: 0, toolCalls: 0 }).decision).toBe("allow");
    expect(f.gate.policyDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("filtered: a server without layers counts as filtered only when the policy has name rules", () => {
    expect(serverFilter(config, selection, "slack", null).filtered).toBe(false);
    expect(serverFilter(config, selection, "slack", policy(NO_NAME_RULES)).filtered).toBe(false);
    expect(serverFilter(config, selection, "slack", policy(DENY_ONLY)).filtered).toBe(true);
  });

  it("the info view shows the policy as the last layer, and what it hides", () => {
    const f = serverFilter(config, selection, "github", policy(ALLOW_AND_DENY));
    const text = renderInfoView(
      buildInfoView({
        server: "github",
        transport: "stdio",
        capabilities: ["tools"],
        layers: f.layers,
        extras: f.extras,
        catalog: ["get_issue", "get_secret", "list_issues", "search_code"],
      }),
    );
    expect(text).toBe(
      [
        "server         github (stdio, connected)",
        "capabilities   tools",
        "filter layers  global (mcp.json): get_* | list_* | search_*",
        "               role (reviewer): get_* | search_*",
        "               policy (policy.yaml): allow get_* | search_code; deny get_secret",
        "",
        "tools (2 allowed / 4 total)",
        "  ✓ get_issue     get_* (global) ∧ get_* (role) ∧ get_* (policy)",
        "  ✗ get_secret    hidden by policy layer",
        "  ✗ list_issues   hidden by role layer",
        "  ✓ search_code   search_* (global) ∧ search_* (role) ∧ search_code (policy)",
        "",
      ].join("\n"),
    );
  });

  it("unknown servers are refused", () => {
    expect(() => serverFilter(config, selection, "nope", null)).toThrow(/not configured in mcp.json/);
  });
});

describe("composeVisibleTools", () => {
  it("names visible tools <server>__<tool>, per server in catalog order", () => {
    const config = buildConfig({
      servers: { a: ["x*"], b: undefined },
      config: "enabled_mcp_servers: all\n",
    });
    const sel = { skills: [] };
    const composed = composeVisibleTools([
      {
        server: "a",
        gate: serverFilter(config, sel, "a", null).gate,
        tools: [{ name: "xy" }, { name: "z" }],
      },
      {
        server: "b",
        gate: serverFilter(config, sel, "b", policy(DENY_ONLY)).gate,
        tools: [{ name: "delete_it" }, { name: "q" }],
      },
    ]);
    expect(composed.map((c) => c.name)).toEqual(["a__xy", "b__q"]);
    expect(composed.map((c) => c.tool.name)).toEqual(["xy", "q"]);
  });
});
