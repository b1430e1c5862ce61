// `policy import --from claude-code`: on a catalog of tool names, toolgate decides exactly as Claude Code
// would with the same settings file (deny ↔ denied, ask ↔ allowed under approval, allow ↔ allowed), checked
// against a small reference implementation of Claude's rules written here from notes/clients.md §1.6; where
// an exact mapping is impossible, toolgate is never less strict and every such item is reported.
import { describe, expect, it } from "vitest";
import { importPolicy } from "../../../src/cli/policy/import/index.js";
import { fixture, imported, lessStrict, table, type Verdict } from "./fixtures/import/harness.js";

interface Settings {
  permissions?: { allow?: string[]; ask?: string[]; deny?: string[]; defaultMode?: string };
}

/** A Claude glob over the whole tool name: `*` is any run of characters, everything else literal. */
function globMatches(glob: string, name: string): boolean {
  const source = glob
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(name);
}

/** `mcp__<literal server>` or `mcp__<literal server>__…`: the only MCP rules Claude applies in allow. */
function literalServerRule(rule: string): boolean {
  if (!rule.startsWith("mcp__")) return false;
  const rest = rule.slice(5);
  const end = rest.indexOf("__");
  return !(end === -1 ? rest : rest.slice(0, end)).includes("*");
}

/**
 * Claude Code's decision for one MCP tool: deny, then ask, then allow, the first match winning; rules with
 * parentheses are skipped in settings files; in allow, a wildcard outside the tool part approves nothing;
 * `mcp__<server>` covers the server; with no match, `default` asks and `dontAsk` denies (and, never asking,
 * denies what an ask rule matches).
 */
function claude(settings: Settings, server: string): (tool: string) => Verdict {
  const p = settings.permissions ?? {};
  const name = (tool: string) => `mcp__${server}__${tool}`;
  const matches = (rule: string, tool: string, list: "allow" | "ask" | "deny") => {
    if (rule.includes("(")) return false;
    if (list === "allow" && !literalServerRule(rule)) return false;
    return rule === `mcp__${server}` || globMatches(rule, name(tool));
  };
  const dontAsk = p.defaultMode === "dontAsk";
  return (tool) => {
    if ((p.deny ?? []).some((r) => matches(r, tool, "deny"))) return "deny";
    if ((p.ask ?? []).some((r) => matches(r, tool, "ask"))) return dontAsk ? "deny" : "ask";
    if ((p.allow ?? []).some((r) => matches(r, tool, "allow"))) return "allow";
    return dontAsk ? "deny" : "ask";
  };
}

function both(name: string, server?: string) {
  const source = fixture(name);
  const settings = JSON.parse(source.text) as Settings;
  const result = imported("claude-code", source, server);
  return { result, reference: claude(settings, result.policy.server) };
}

describe("policy import --from claude-code: identical decisions", () => {
  it("an allow rule for the whole server: no allowlist, ask rules under approval", () => {
    const { result, reference } = both("claude-server-wide.json", "github");
    expect(result.policy.server).toBe("github");
    expect(table(result.decide)).toEqual(table(reference));
    expect(result.report).toEqual([]);
    expect(result.ignored).toEqual(["Edit", "Bash(git status)", "mcp__slack__post_message"]);
    expect(result.policy.allow).toBeNull();
    expect(result.policy.approvalRequired.map((e) => e.pattern)).toEqual([
      "create_*",
      "merge_pull_request",
      "*__reset",
    ]);
    // Sanity: the table has all three outcomes.
    expect(new Set(Object.values(table(reference)))).toEqual(new Set(["deny", "ask", "allow"]));
  });

  it("defaultMode dontAsk: an allowlist of the allow rules; ask rules and unmatched tools denied", () => {
    const { result, reference } = both("claude-dont-ask.json");
    expect(table(result.decide)).toEqual(table(reference));
    expect(result.report).toEqual([]);
    expect(result.policy.allow?.map((e) => e.pattern)).toEqual([
      "get_*",
      "list_issues",
      "fs.read",
      "*_code",
      "create_issue",
    ]);
    expect(table(reference).create_issue).toBe("deny");
    expect(table(reference).get_raw_blob).toBe("deny");
  });

  it("no allow rule for the server: every tool not denied needs approval", () => {
    const { result, reference } = both("claude-ask-all.json", "github");
    expect(table(result.decide)).toEqual(table(reference));
    expect(result.report).toEqual([]);
    expect(result.policy.approvalRequired.map((e) => e.pattern)).toEqual(["*"]);
    expect(result.ignored).toEqual(["mcp__memory__read_graph"]);
  });

  it("mcp__* in deny denies every tool of the server, whichever is chosen", () => {
    const source = { file: "s.json", text: '{"permissions":{"deny":["mcp__*"],"allow":["mcp__a__x"]}}' };
    const result = imported("claude-code", source, "b");
    expect(result.report).toEqual([]);
    expect(table(result.decide)).toEqual(table(claude(JSON.parse(source.text) as Settings, "b")));
    expect(Object.values(table(result.decide)).every((v) => v === "deny")).toBe(true);
  });

  it("the policy loads, says where it came from, and keeps the source rule beside each entry", () => {
    const { result } = both("claude-server-wide.json", "github");
    expect(result.yaml).toMatch(
      /^# toolgate policy import --from claude-code: server "github", from .*claude-server-wide\.json\./,
    );
    expect(result.yaml).toContain('version: "2.0"');
    expect(result.yaml).toContain("unconstrained_tools: warn");
    expect(result.yaml).toContain("toolgate policy init writes them");
    expect(result.yaml).toContain('- delete_* # deny "mcp__github__delete_*" (line 5)');
  });
});

describe("policy import --from claude-code: what cannot be carried over", () => {
  it("reports each item with its line and column, and is never less strict than Claude", () => {
    const { result, reference } = both("claude-lossy.json", "github");
    expect(lessStrict(reference, result.decide)).toEqual([]);
    expect(result.report.map((r) => [r.line, r.column, r.item])).toEqual([
      [13, 39, 'deny rule "mcp__github__get_*_blob"'],
      [6, 7, 'allow rule "mcp__github__get_*_contents"'],
      [7, 7, 'allow rule "mcp__*"'],
      [8, 7, 'allow rule "mcp__github__search_code(query:*)"'],
      [undefined, undefined, "tools no rule matches"],
    ]);
    expect(result.report[0]!.why).toContain('carried as "get_*"');
    expect(result.report[1]!.why).toContain("literal asterisk");
    expect(result.report[2]!.why).toContain("ignores a wildcard in the server part");
    expect(result.report[3]!.why).toContain("matches arguments");
    expect(result.ignored).toEqual(["Edit", "Bash(git status)", "mcp__slack__post_message"]);
    // Where toolgate differs from Claude, it is stricter, and only there.
    const claudeTable = table(reference);
    const ours = table(result.decide);
    const differences = Object.keys(ours).filter((t) => ours[t] !== claudeTable[t]);
    expect(Object.fromEntries(differences.map((t) => [t, `${claudeTable[t]} → ${ours[t]}`]))).toEqual({
      get_issue: "allow → deny", // the superset deny "get_*"
      get_pull_request: "ask → deny",
      get_file_contents: "allow → deny",
      merge_pull_request: "ask → deny",
      delete_repository: "ask → deny",
      search_code: "ask → deny",
      search_issues: "ask → deny",
      "fs.read": "ask → deny",
      "fs.write": "ask → deny",
    });
  });

  it.each([
    ["*", "deny", 'only "mcp__*" is documented'],
    ["mcp__gith*", "ask", 'only "mcp__*" is documented'],
    ["mcp__*__delete_*", "deny", "wildcard in the server name"],
    ["mcp__*__get_*", "allow", "ignores a wildcard in the server part"],
    ["mcp__github__get_*_raw", "ask", 'carried as "get_*"'],
  ])("%s in %s is reported", (rule, list, why) => {
    const text = JSON.stringify({
      permissions: { [list]: [rule], allow: ["mcp__github__get_issue", ...(list === "allow" ? [rule] : [])] },
    });
    const result = imported("claude-code", { file: "s.json", text }, "github");
    const item = result.report.find((r) => r.item === `${list} rule "${rule}"`);
    expect(item?.why).toContain(why);
    expect(lessStrict(claude(JSON.parse(text) as Settings, "github"), result.decide)).toEqual([]);
  });

  it.each([
    ["bypassPermissions", "carried as asking"],
    ["plan", "carried as denying them"],
    ["auto", "carried as denying them"],
  ])("defaultMode %s is reported and carried the stricter way", (mode, why) => {
    const text = JSON.stringify(
      { permissions: { defaultMode: mode, deny: ["mcp__github__delete_*"] } },
      null,
      2,
    );
    const result = imported("claude-code", { file: "s.json", text });
    expect(result.report).toEqual([
      { line: 3, column: 20, item: `defaultMode "${mode}"`, why: expect.stringContaining(why) },
    ]);
    expect(result.decide("delete_repository")).toBe("deny");
    expect(result.decide("get_issue")).toBe(mode === "bypassPermissions" ? "ask" : "deny");
  });
});

describe("policy import --from claude-code: bad input", () => {
  const bad = (text: string, server?: string) => {
    const result = importPolicy("claude-code", "settings.json", text, server);
    if (result.ok) throw new Error("expected bad input");
    return result.error;
  };

  it("a trailing comma (strict JSON) names line and column", () => {
    const error = bad('{\n  "permissions": {\n    "allow": ["mcp__a__x",]\n  }\n}\n');
    expect(error.spot).toEqual({ line: 3, column: 27 });
    expect(error.message).toContain("where a value was expected");
    expect(error.hint).toContain("strict JSON");
  });

  it("a comment is not JSON for Claude Code", () => {
    expect(bad('{\n  // no\n  "permissions": {}\n}').spot).toEqual({ line: 2, column: 3 });
  });

  it("a rule list that is not a list of strings", () => {
    const error = bad('{"permissions": {"deny": "mcp__a__x"}}');
    expect(error.message).toBe(
      'permissions.deny must be a list of strings, but this is a string ("mcp__a__x")',
    );
    expect(error.spot).toEqual({ line: 1, column: 26 });
    expect(bad('{"permissions": {"deny": [1]}}').spot).toEqual({ line: 1, column: 27 });
    expect(bad('{"permissions": {"defaultMode": true}}').message).toContain("defaultMode must be a string");
  });

  it("several servers without --server, listing them", () => {
    const error = bad('{"permissions": {"allow": ["mcp__a__x", "mcp__b", "mcp__a__y"]}}');
    expect(error.message).toBe("the file names 2 MCP servers; choose one with --server");
    expect(error.hint).toBe("servers found: a, b");
  });

  it("an unknown --server, and a file that names none", () => {
    const error = bad('{"permissions": {"allow": ["mcp__a__x", "Bash"]}}', "c");
    expect(error.message).toBe("nothing in the file is about server 'c'");
    expect(error.hint).toBe("servers found: a");
    expect(bad('{"permissions": {"allow": ["Bash"]}}').message).toBe("the file names no MCP server");
  });
});
