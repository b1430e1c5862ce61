// `policy import --from codex`: toolgate decides every catalog name as Codex would, checked against a
// reference implementation of Codex's ToolFilter (notes/clients.md §6): enabled_tools is an allowlist of
// exact names (`[]` allows nothing), disabled_tools removes names after it (disabled wins), and
// `enabled = false` starts no tool at all.
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { importPolicy } from "../../../src/cli/policy/import/index.js";
import { fixture, imported, lessStrict, table, type Verdict } from "./fixtures/import/harness.js";

interface ServerTable {
  enabled?: boolean;
  enabled_tools?: string[];
  disabled_tools?: string[];
}

function codex(text: string, server: string): (tool: string) => Verdict {
  const config = (parse(text) as unknown as { mcp_servers: Record<string, ServerTable> }).mcp_servers[
    server
  ]!;
  return (tool) => {
    if (config.enabled === false) return "deny";
    if (config.enabled_tools !== undefined && !config.enabled_tools.includes(tool)) return "deny";
    return config.disabled_tools?.includes(tool) ? "deny" : "allow";
  };
}

function both(text: string, server: string) {
  return { result: imported("codex", { file: "config.toml", text }, server), reference: codex(text, server) };
}

describe("policy import --from codex: identical decisions", () => {
  const { text } = fixture("codex-config.toml");

  it.each(["github", "fs", "off"])("server %s", (server) => {
    const { result, reference } = both(text, server);
    expect(table(result.decide)).toEqual(table(reference));
    expect(result.report).toEqual([]);
  });

  it("disabled wins over enabled; enabled_tools = [] allows nothing", () => {
    const { reference } = both(text, "github");
    expect([reference("fs.write"), reference("admin__audit"), reference("fs.read")]).toEqual([
      "deny",
      "deny",
      "allow",
    ]);
    const empty = both('[mcp_servers.s]\ncommand = "x"\nenabled_tools = []\n', "s");
    expect(empty.result.policy.allow).toEqual([]);
    expect(Object.values(table(empty.result.decide)).every((v) => v === "deny")).toBe(true);
  });

  it("the comments name the line of each list", () => {
    const { result } = both(text, "github");
    expect(result.yaml).toContain('- fs.write # disabled_tools "fs.write" (line 6)');
    expect(result.yaml).toContain('- get_issue # enabled_tools "get_issue" (line 5)');
  });
});

describe("policy import --from codex: what cannot be carried over", () => {
  it("approval modes are carried as approval_required and reported with their lines", () => {
    const text = [
      "[mcp_servers.s]",
      'command = "x"',
      'default_tools_approval_mode = "approve"',
      "",
      "[mcp_servers.s.tools.search_code]",
      'approval_mode = "prompt"',
      'color = "red"',
    ].join("\n");
    const { result, reference } = both(text, "s");
    expect(result.report.map((r) => [r.line, r.item])).toEqual([
      [3, 'default_tools_approval_mode = "approve"'],
      [5, 'tools.search_code.approval_mode = "prompt"'],
      [5, 'tools.search_code.color = "red"'],
    ]);
    expect(result.policy.approvalRequired.map((e) => e.pattern)).toEqual(["*", "search_code"]);
    expect(lessStrict(reference, result.decide)).toEqual([]);
    expect(result.decide("get_issue")).toBe("ask");
  });

  it("a name with '*' is reported, not read as a wildcard", () => {
    const { result, reference } = both('[mcp_servers.s]\nenabled_tools = ["get_*", "get_issue"]\n', "s");
    expect(result.report).toEqual([
      { line: 2, column: 1, item: 'enabled_tools "get_*"', why: expect.stringContaining("literally") },
    ]);
    expect(table(result.decide)).toEqual(table(reference));
  });
});

describe("policy import --from codex: bad input", () => {
  const bad = (text: string, server?: string) => {
    const result = importPolicy("codex", "config.toml", text, server);
    if (result.ok) throw new Error("expected bad input");
    return result.error;
  };

  it("a TOML error names line and column", () => {
    const error = bad('[mcp_servers.s]\ncommand = "x"\nenabled_tools = ["a" "b"]\n');
    expect(error.spot.line).toBe(3);
    expect(error.spot.column).toBeGreaterThan(1);
    expect(error.message).toMatch(/\(not valid TOML\)$/);
  });

  it("the wrong shapes, with the line of the key", () => {
    expect(bad('command = "x"\n').message).toBe("the file has no [mcp_servers.<name>] table");
    const error = bad('[mcp_servers.s]\ncommand = "x"\ndisabled_tools = "a"\n');
    expect(error.message).toBe("mcp_servers.s.disabled_tools must be a list of tool names");
    expect(error.spot).toEqual({ line: 3, column: 1 });
    expect(bad('[mcp_servers.s]\nenabled = "no"\n').message).toBe(
      "mcp_servers.s.enabled must be true or false",
    );
  });

  it("several servers without --server, and an unknown one, list the servers (a typo: did you mean)", () => {
    const { text } = fixture("codex-config.toml");
    expect(bad(text).hint).toBe("servers found: github, fs, off");
    expect(bad(text, "nope").message).toBe("nothing in the file is about server 'nope'");
    expect(bad(text, "githb").hint).toBe("did you mean 'github'? (servers found: github, fs, off)");
  });
});
