// `policy import --from vscode`: toolgate decides every catalog name as VS Code would offer it, checked
// against a reference implementation of the tool lists of notes/clients.md §4: an agent or prompt file's
// front matter `tools:` and a tool sets file's `tools` are allow lists; `<server>/*` is every tool of the
// server, `<server>/<tool>` one tool; anything else is not about this server.
import { describe, expect, it } from "vitest";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import { importPolicy } from "../../../src/cli/policy/import/index.js";
import { fixture, imported, table, type Verdict } from "./fixtures/import/harness.js";

function vscode(entries: string[], server: string): (tool: string) => Verdict {
  return (tool) =>
    entries.includes(`${server}/*`) || entries.includes(`${server}/${tool}`) ? "allow" : "deny";
}

function agentEntries(text: string): string[] {
  return (parseYaml(text.split("---")[1]!) as { tools: string[] }).tools;
}

function toolSetEntries(text: string): string[] {
  return Object.values(parseJsonc(text) as Record<string, { tools: string[] }>).flatMap((s) => s.tools);
}

describe("policy import --from vscode: identical decisions", () => {
  const agent = fixture("reviewer.agent.md");
  const sets = fixture("team.toolsets.jsonc");

  it.each(["github", "memory"])("an agent file's front matter, server %s", (server) => {
    const result = imported("vscode", agent, server);
    expect(table(result.decide)).toEqual(table(vscode(agentEntries(agent.text), server)));
    expect(result.report).toEqual([]);
  });

  it.each(["github", "memory"])("a tool sets file (every set), server %s", (server) => {
    const result = imported("vscode", sets, server);
    expect(table(result.decide)).toEqual(table(vscode(toolSetEntries(sets.text), server)));
  });

  it("other servers, built-in tools and tool sets are counted, not carried", () => {
    const result = imported("vscode", agent, "github");
    expect(result.ignored).toEqual(["codebase", "memory/*", "fetch"]);
    expect(result.policy.allow?.map((e) => e.pattern)).toEqual([
      "get_issue",
      "list_issues",
      "search_code",
      "admin__audit",
      "fs.read",
    ]);
    expect(imported("vscode", agent, "memory").policy.allow).toBeNull();
  });

  it("a comma-separated tools string is read too", () => {
    const text = "---\ntools: github/get_issue, codebase\n---\n";
    const result = imported("vscode", { file: "a.prompt.md", text });
    expect(table(result.decide)).toEqual(table(vscode(["github/get_issue"], "github")));
  });
});

describe("policy import --from vscode: what cannot be carried over", () => {
  it("a '*' after the server other than '<server>/*' is reported", () => {
    const text = "---\ntools:\n  - github/get_*\n  - github/list_issues\n---\n";
    const result = imported("vscode", { file: "x.agent.md", text });
    expect(result.report).toEqual([
      { line: 3, column: 5, item: '"github/get_*"', why: expect.stringContaining("literally") },
    ]);
    expect(result.decide("get_issue")).toBe("deny");
    expect(result.decide("list_issues")).toBe("allow");
  });
});

describe("policy import --from vscode: bad input", () => {
  const bad = (file: string, text: string, server?: string) => {
    const result = importPolicy("vscode", file, text, server);
    if (result.ok) throw new Error("expected bad input");
    return result.error;
  };

  it("front matter that is never closed, or has no tools list", () => {
    const open = bad("x.agent.md", "---\ntools: [a/b]\n");
    expect(open.message).toContain("never closed");
    expect(open.spot).toEqual({ line: 1, column: 1 });
    expect(bad("x.agent.md", "---\ndescription: d\n---\n").message).toContain("has no tools list");
    expect(bad("x.agent.md", "# no header\n").message).toBe("the file has no '---' front matter");
  });

  it("a YAML error in the front matter names the line in the file", () => {
    const error = bad("x.agent.md", "---\ndescription: d\ntools: [a/b\n---\n");
    expect(error.spot.line).toBeGreaterThanOrEqual(3);
  });

  it("a tool sets file: a JSONC error, a set without tools", () => {
    expect(bad("t.toolsets.jsonc", '{\n  "a": { "tools": ["s/x"] }\n  "b": {}\n}').spot).toEqual({
      line: 2,
      column: 28,
    });
    expect(bad("t.toolsets.jsonc", '{"a": {"description": "d"}}').message).toBe(
      'tool set "a" has no "tools" list',
    );
  });

  it("several servers without --server, and an unknown one, list the servers", () => {
    const { file, text } = fixture("reviewer.agent.md");
    expect(bad(file, text).hint).toBe("servers found: github, memory");
    expect(bad(file, text, "slack").message).toBe("nothing in the file is about server 'slack'");
  });
});
