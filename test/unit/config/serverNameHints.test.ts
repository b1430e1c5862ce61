// "Did you mean" for server names nobody configured, wherever the configuration gives one: mcp_tools keys at
// every level, enabled_mcp_servers, an alias's targets, a graph's servers and nodes; each with file and line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfigDir } from "../../../src/config/configDir.js";
import type { Diagnostic } from "../../../src/engine/model/diagnostics.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function configDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "tg-hints-"));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const MCP = JSON.stringify({
  mcpServers: { fs: { command: "x" }, memory: { command: "y" }, github: { command: "z" } },
});

function hints(dir: string, diagnostics: Diagnostic[]): string[] {
  return diagnostics
    .filter((d) => d.code === "W_UNKNOWN_SERVER" || d.code.includes("NOT_ENABLED"))
    .map((d) => `${d.file.slice(dir.length + 1)}:${d.line} ${d.code} ${d.hint ?? ""}`);
}

describe("unknown server names get a did-you-mean", () => {
  it("in config.yaml: mcp_tools keys, enabled_mcp_servers and alias targets", () => {
    const dir = configDir({
      "mcp.json": MCP,
      "config.yaml": [
        "enabled_mcp_servers: [fs, memroy]",
        "mapping_mcp_servers:",
        "  code: [githbu, fs]",
        "mcp_tools:",
        "  fss: [read_*]",
        "  zzz_unrelated: [x]",
        "",
      ].join("\n"),
    });
    const { diagnostics } = loadConfigDir(dir, { skills: [] });
    expect(hints(dir, diagnostics)).toEqual([
      "config.yaml:1 W_UNKNOWN_SERVER did you mean 'memory'? (configured servers: fs, memory, github, code)",
      "config.yaml:3 W_UNKNOWN_SERVER did you mean 'github'? (configured servers: fs, memory, github)",
      "config.yaml:5 W_UNKNOWN_SERVER did you mean 'fs'? (configured servers: fs, memory, github, code)",
      "config.yaml:6 W_UNKNOWN_SERVER configured servers: fs, memory, github, code",
    ]);
  });

  it("in roles, skills, sessions, agents and graphs", () => {
    const dir = configDir({
      "mcp.json": MCP,
      "config.yaml": "enabled_mcp_servers: all\n",
      "roles/r.md": "---\nenabled_mcp_servers: [gihtub]\nmcp_tools:\n  fss: [read_*]\n---\nYou read.\n",
      "skills/s/SKILL.md":
        "---\nname: s\ndescription: d\nenabled_mcp_servers: [fs]\nmcp_tools:\n  memoyr: [a]\n---\n",
      "sessions/w.yaml": "mcp_tools:\n  Fs: [read_*]\n",
      "agents/a/config.yaml": "mcp_servers: [fs]\nmcp_tools:\n  githb: [get_*]\n",
      "agents/g/graph.yaml": [
        "mcp_servers: [fs]",
        "nodes:",
        "  n:",
        "    type: llm",
        "    tools: [mcp:fss]",
        "    mcp_tools:",
        "      fss: [read_*]",
        "",
      ].join("\n"),
    });
    const withAgent = loadConfigDir(dir, { role: "r", session: "w", skills: ["s"], agent: "a" });
    expect(hints(dir, withAgent.diagnostics)).toEqual([
      "roles/r.md:2 W_UNKNOWN_SERVER did you mean 'github'? (configured servers: fs, memory, github)",
      "roles/r.md:4 W_UNKNOWN_SERVER did you mean 'fs'? (configured servers: fs, memory, github)",
      "agents/a/config.yaml:3 W_UNKNOWN_SERVER did you mean 'github'? (configured servers: fs, memory, github)",
      "sessions/w.yaml:2 W_UNKNOWN_SERVER did you mean 'fs'? (configured servers: fs, memory, github)",
      "skills/s/SKILL.md:6 W_UNKNOWN_SERVER did you mean 'memory'? (configured servers: fs, memory, github)",
    ]);
    const withGraph = loadConfigDir(dir, { skills: [], agent: "g" });
    expect(hints(dir, withGraph.diagnostics)).toEqual([
      "agents/g/graph.yaml:5 W_GRAPH_SERVER_NOT_ENABLED did you mean 'fs'? (configured servers: fs, memory, github)",
      "agents/g/graph.yaml:7 E_GRAPH_SERVER_NOT_ENABLED did you mean 'fs'? (configured servers: fs, memory, github)",
    ]);
  });

  it("a name close to none of them lists the configured servers; a configured one gets no warning", () => {
    const dir = configDir({
      "mcp.json": MCP,
      "config.yaml": "mcp_tools:\n  fs: [read_*]\n  postgres: [q]\n",
    });
    const { diagnostics } = loadConfigDir(dir, { skills: [] });
    expect(hints(dir, diagnostics)).toEqual([
      "config.yaml:3 W_UNKNOWN_SERVER configured servers: fs, memory, github",
    ]);
  });
});
