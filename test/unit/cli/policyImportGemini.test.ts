// `policy import --from gemini`: toolgate decides every catalog name as Gemini CLI would, checked against a
// reference implementation of Gemini's own check (notes/clients.md §5, mcp-client.ts isEnabled): exclude
// wins (exact names), includeTools matches `name` or `name(…)`, and without `trust: true` each call is
// confirmed by the user (ask).
import { describe, expect, it } from "vitest";
import { importPolicy } from "../../../src/cli/policy/import/index.js";
import { parse } from "jsonc-parser";
import { CATALOG, fixture, imported, table, type Verdict } from "./fixtures/import/harness.js";

interface ServerConfig {
  includeTools?: string[];
  excludeTools?: string[];
  trust?: boolean;
}
interface Settings {
  mcpServers: Record<string, ServerConfig>;
  mcp?: { allowed?: string[]; excluded?: string[] };
}

function gemini(settings: Settings, server: string): (tool: string) => Verdict {
  const config = settings.mcpServers[server]!;
  const off =
    (settings.mcp?.excluded ?? []).includes(server) ||
    (settings.mcp?.allowed !== undefined && !settings.mcp.allowed.includes(server));
  return (tool) => {
    if (off) return "deny";
    if (config.excludeTools?.includes(tool)) return "deny";
    const include = config.includeTools;
    if (include && !include.some((t) => t === tool || t.startsWith(`${tool}(`))) return "deny";
    return config.trust === true ? "allow" : "ask";
  };
}

function both(text: string, server: string, file = "settings.json") {
  const result = imported("gemini", { file, text }, server);
  return { result, reference: gemini(parse(text) as Settings, server) };
}

describe("policy import --from gemini: identical decisions", () => {
  const source = fixture("gemini-settings.jsonc");

  it("includeTools, excludeTools (exclude wins), name(…) entries, and confirmation without trust", () => {
    const { result, reference } = both(source.text, "github");
    expect(table(result.decide)).toEqual(table(reference));
    expect(result.report).toEqual([]);
    const t = table(reference);
    expect([
      t["fs.write"],
      t.delete_repository,
      t.search_code,
      t["fs.read"],
      t.create_issue,
      t.list_commits,
    ]).toEqual(["deny", "deny", "ask", "ask", "deny", "deny"]);
  });

  it("trust: true and no lists: every tool allowed without asking", () => {
    const { result, reference } = both(source.text, "memory");
    expect(table(result.decide)).toEqual(table(reference));
    expect(Object.values(table(reference)).every((v) => v === "allow")).toBe(true);
    expect(result.policy.allow).toBeNull();
  });

  it("includeTools: [] allows nothing; mcp.excluded and mcp.allowed switch a server off", () => {
    for (const text of [
      '{"mcpServers": {"s": {"includeTools": [], "trust": true}}}',
      '{"mcp": {"excluded": ["s"]}, "mcpServers": {"s": {}}}',
      '{"mcp": {"allowed": ["t"]}, "mcpServers": {"s": {}, "t": {}}}',
    ]) {
      const { result, reference } = both(text, "s");
      expect(table(result.decide)).toEqual(table(reference));
      expect(Object.values(table(result.decide)).every((v) => v === "deny")).toBe(true);
    }
  });

  it("the policy names where it came from", () => {
    const { result } = both(source.text, "github", "/home/me/.gemini/settings.json");
    expect(result.yaml.split("\n")[0]).toBe(
      '# toolgate policy import --from gemini: server "github", from /home/me/.gemini/settings.json.',
    );
    expect(result.yaml).toContain('- fs.write # excludeTools "fs.write" (line 17)');
  });
});

describe("policy import --from gemini: what cannot be carried over", () => {
  it("a name with '*' (Gemini matches it literally; toolgate would read a wildcard) is reported", () => {
    const text =
      '{\n  "mcpServers": {\n    "s": { "includeTools": ["get_*", "a"], "excludeTools": ["*"] }\n  }\n}';
    const { result, reference } = both(text, "s");
    expect(result.report.map((r) => [r.line, r.column, r.item])).toEqual([
      [3, 29, 'includeTools "get_*"'],
      [3, 61, 'excludeTools "*"'],
    ]);
    // No catalog name has a '*', so leaving them out changes no decision.
    expect(table(result.decide)).toEqual(table(reference));
    expect(CATALOG.length).toBeGreaterThanOrEqual(15);
  });
});

describe("policy import --from gemini: bad input", () => {
  const bad = (text: string, server?: string) => {
    const result = importPolicy("gemini", "settings.json", text, server);
    if (result.ok) throw new Error("expected bad input");
    return result.error;
  };

  it("a JSONC syntax error names line and column", () => {
    const error = bad('{\n  "mcpServers": {\n    "s": {}\n    "t": {}\n  }\n}');
    expect(error.spot).toEqual({ line: 3, column: 12 });
    expect(error.message).toContain("expected ','");
  });

  it("the wrong shapes", () => {
    expect(bad("{}").message).toBe('the settings file has no "mcpServers" object');
    expect(bad('{"mcpServers": {"s": {"includeTools": "a,b"}}}').message).toContain(
      "mcpServers.s.includeTools must be a list of strings",
    );
    expect(bad('{"mcpServers": {"s": {"trust": "yes"}}}').spot).toEqual({ line: 1, column: 32 });
  });

  it("several servers without --server, and an unknown one, list the servers", () => {
    const text = '{"mcpServers": {"a": {}, "b": {}}}';
    expect(bad(text).hint).toBe("servers found: a, b");
    expect(bad(text, "c").message).toBe("nothing in the file is about server 'c'");
  });
});
