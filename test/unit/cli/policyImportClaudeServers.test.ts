// `policy import --from claude-code` and the settings that switch a whole server off: deniedMcpServers,
// allowedMcpServers and disabledMcpjsonServers. Checked against a reference of Claude Code's own check
// before it starts a server (managed-mcp docs, "How a server is evaluated"; settings reference), run for
// every definition the server could have (stdio or remote, matching a command or URL or not, from a
// project's .mcp.json or not): a setting the import calls sure switches the server off under every one,
// and whenever Claude Code could start none of its tools, the policy allows none.
import { describe, expect, it } from "vitest";
import { importPolicy } from "../../../src/cli/policy/import/index.js";
import { reportText } from "../../../src/cli/policyImportCommand.js";
import { CATALOG, imported } from "./fixtures/import/harness.js";

type ListEntry = { serverName: string } | { serverCommand: string[] } | { serverUrl: string };
interface Settings {
  deniedMcpServers?: ListEntry[];
  allowedMcpServers?: ListEntry[];
  disabledMcpjsonServers?: string[];
  enabledMcpjsonServers?: string[];
  enableAllProjectMcpServers?: boolean;
}
interface Definition {
  name: string;
  transport: "stdio" | "remote";
  command: string[];
  url: string;
  fromMcpJson: boolean;
}

function urlMatches(pattern: string, url: string): boolean {
  const source = pattern
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(url);
}

function entryMatches(entry: ListEntry, server: Definition): boolean {
  if ("serverName" in entry) return entry.serverName === server.name;
  if ("serverCommand" in entry) {
    return (
      server.transport === "stdio" && JSON.stringify(entry.serverCommand) === JSON.stringify(server.command)
    );
  }
  return server.transport === "remote" && urlMatches(entry.serverUrl, server.url);
}

/** Claude Code's check before it starts a server: the denylist, the allowlist, then .mcp.json approval. */
function claudeStarts(settings: Settings, server: Definition): boolean {
  if ((settings.deniedMcpServers ?? []).some((e) => entryMatches(e, server))) return false;
  const allowed = settings.allowedMcpServers;
  if (allowed !== undefined) {
    const strict = server.transport === "stdio" ? "serverCommand" : "serverUrl";
    const hasStrict = allowed.some((e) => strict in e);
    const pass = allowed.some((e) =>
      strict in e ? entryMatches(e, server) : !hasStrict && "serverName" in e && entryMatches(e, server),
    );
    if (!pass) return false;
  }
  // Disabled wins over enabledMcpjsonServers and enableAllProjectMcpServers.
  if (server.fromMcpJson && (settings.disabledMcpjsonServers ?? []).includes(server.name)) return false;
  return true;
}

const COMMAND = ["npx", "-y", "@modelcontextprotocol/server-github"];
const URL = "https://api.githubcopilot.com/mcp/";

/** Every definition a server of this name could have, as far as the checks can tell them apart. */
function definitions(name: string): Definition[] {
  const out: Definition[] = [];
  for (const transport of ["stdio", "remote"] as const) {
    for (const matching of [true, false]) {
      for (const fromMcpJson of [true, false]) {
        out.push({
          name,
          transport,
          command: matching ? COMMAND : ["node", "other.js"],
          url: matching ? URL : "https://elsewhere.example/mcp",
          fromMcpJson,
        });
      }
    }
  }
  return out;
}

const RULES = { permissions: { allow: ["mcp__github"], deny: ["mcp__github__delete_*"] } };

function run(settings: Settings, server = "github") {
  const text = JSON.stringify({ ...RULES, ...settings }, null, 2);
  const result = imported("claude-code", { file: "settings.json", text }, server);
  const starts = definitions(server).map((d) => claudeStarts(settings, d));
  return { result, text, starts };
}

function allDenied(decide: (tool: string) => string): boolean {
  return CATALOG.every((tool) => decide(tool) === "deny");
}

describe("policy import --from claude-code: settings that switch a server off", () => {
  const cases: Array<[string, Settings, "on" | "off" | "maybe"]> = [
    ["denied by name", { deniedMcpServers: [{ serverName: "github" }] }, "off"],
    ["another server denied", { deniedMcpServers: [{ serverName: "slack" }] }, "on"],
    ["denied by command", { deniedMcpServers: [{ serverCommand: COMMAND }] }, "maybe"],
    ["denied by URL", { deniedMcpServers: [{ serverUrl: "https://api.githubcopilot.com/*" }] }, "maybe"],
    ["an empty allowlist", { allowedMcpServers: [] }, "off"],
    ["an allowlist naming it", { allowedMcpServers: [{ serverName: "github" }] }, "on"],
    ["an allowlist naming another", { allowedMcpServers: [{ serverName: "slack" }] }, "off"],
    [
      "an allowlist with commands",
      { allowedMcpServers: [{ serverName: "github" }, { serverCommand: COMMAND }] },
      "maybe",
    ],
    ["disabled in .mcp.json", { disabledMcpjsonServers: ["github"] }, "maybe"],
    [
      "disabled wins over enabled and enable-all",
      {
        disabledMcpjsonServers: ["github"],
        enabledMcpjsonServers: ["github"],
        enableAllProjectMcpServers: true,
      },
      "maybe",
    ],
    ["enabled only", { enabledMcpjsonServers: ["github"], enableAllProjectMcpServers: false }, "on"],
    [
      "denied by name, and disabled too",
      { deniedMcpServers: [{ serverName: "github" }], disabledMcpjsonServers: ["github"] },
      "off",
    ],
  ];

  for (const [name, settings, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      const { result, starts } = run(settings);
      // The reference agrees with what the case says: never started, always started, or it depends.
      expect(starts.every((s) => !s)).toBe(expected === "off");
      expect(starts.every((s) => s)).toBe(expected === "on");
      if (expected === "on") {
        expect(result.switchedOff).toBeUndefined();
        expect(result.policy.allow).toBeNull();
        expect(allDenied(result.decide)).toBe(false);
        return;
      }
      // Off or perhaps off: nothing is allowed, whichever definition the server has.
      expect(result.policy.allow).toEqual([]);
      expect(allDenied(result.decide)).toBe(true);
      expect(result.switchedOff?.sure).toBe(expected === "off");
      if (expected === "off") expect(result.report).toEqual([]);
      else expect(result.report.length).toBeGreaterThan(0);
    });
  }

  it("names the setting and its line in the policy, the report and the summary", () => {
    const denied = run({ deniedMcpServers: [{ serverName: "github" }] });
    expect(denied.result.switchedOff).toEqual({
      by: 'deniedMcpServers {"serverName":"github"} (line 11)',
      sure: true,
    });
    expect(denied.result.yaml).toContain(
      '# The server is switched off by deniedMcpServers {"serverName":"github"} (line 11): nothing is allowed.',
    );
    expect(denied.result.yaml).toMatch(/# Nothing is allowed\.\n {2}allow: \[\]/);
    expect(reportText("settings.json", denied.result)).toBe(
      'toolgate: server "github" skipped: switched off by deniedMcpServers {"serverName":"github"} (line 11); the policy allows nothing\n',
    );

    const allowed = run({ allowedMcpServers: [{ serverName: "slack" }] });
    expect(allowed.result.switchedOff?.by).toBe("allowedMcpServers, which does not name it (line 10)");

    const disabled = run({ disabledMcpjsonServers: ["github"] });
    expect(disabled.result.report).toEqual([
      {
        line: 11,
        column: 5,
        item: 'disabledMcpjsonServers "github"',
        why: "Claude Code applies it only to a server defined in a project's .mcp.json, and a settings file does not say where github is defined; carried as switching github off (stricter)",
      },
    ]);
    expect(reportText("settings.json", disabled.result).split("\n")).toEqual([
      'toolgate: server "github" skipped: perhaps switched off by disabledMcpjsonServers (line 11); the policy allows nothing',
      "toolgate: 1 item could not be carried over exactly (the policy keeps the stricter reading):",
      `  settings.json:11:5: disabledMcpjsonServers "github": ${disabled.result.report[0]!.why}`,
      "",
    ]);

    const byCommand = run({ deniedMcpServers: [{ serverCommand: COMMAND }] });
    expect(byCommand.result.report[0]!.item).toBe(
      `deniedMcpServers {"serverCommand":${JSON.stringify(COMMAND)}}`,
    );
    expect(byCommand.result.report[0]!.why).toContain("import a copy of the file without this entry");
  });

  it("a server named only by such a setting can be chosen with --server", () => {
    const text = '{"permissions": {"allow": ["mcp__github"]}, "disabledMcpjsonServers": ["memory"]}';
    const result = imported("claude-code", { file: "s.json", text }, "memory");
    expect(result.policy.server).toBe("memory");
    expect(result.policy.allow).toEqual([]);
    // Without --server the file is about github: the switch of another server does not count.
    expect(imported("claude-code", { file: "s.json", text }).policy.server).toBe("github");
    expect(imported("claude-code", { file: "s.json", text }).switchedOff).toBeUndefined();
  });

  it("bad entries are bad input, with line and column", () => {
    const bad = (settings: string) => {
      const result = importPolicy(
        "claude-code",
        "s.json",
        `{"permissions": {"allow": ["mcp__a"]},\n${settings}}`,
      );
      if (result.ok) throw new Error("expected bad input");
      return [result.error.message, result.error.spot];
    };
    expect(bad('"deniedMcpServers": {"serverName": "a"}')).toEqual([
      "deniedMcpServers must be a list, but this is a map",
      { line: 2, column: 21 },
    ]);
    expect(bad('"deniedMcpServers": [{"serverName": "a", "serverUrl": "https://x"}]')[0]).toBe(
      "deniedMcpServers[0] must have exactly one of serverName, serverCommand, serverUrl, but it has serverName, serverUrl",
    );
    expect(bad('"allowedMcpServers": [{"name": "a"}]')[0]).toContain("but it has name");
    expect(bad('"allowedMcpServers": [{"serverCommand": "npx x"}]')[0]).toContain(
      "allowedMcpServers[0].serverCommand must be a list of strings",
    );
    expect(bad('"deniedMcpServers": [{"serverName": ""}]')[0]).toContain("must be a non-empty string");
    expect(bad('"disabledMcpjsonServers": "a"')[0]).toContain(
      "disabledMcpjsonServers must be a list of strings",
    );
  });
});

describe("policy import: the other formats' switched-off servers are skipped the same way", () => {
  it("gemini mcp.excluded and codex enabled = false say so in the summary", () => {
    const gemini = imported("gemini", {
      file: "settings.json",
      text: '{"mcp": {"excluded": ["s"]}, "mcpServers": {"s": {}}}',
    });
    expect(reportText("settings.json", gemini)).toBe(
      'toolgate: server "s" skipped: switched off by mcp.excluded (line 1); the policy allows nothing\n',
    );
    const codex = imported("codex", {
      file: "config.toml",
      text: '[mcp_servers.s]\ncommand = "x"\nenabled = false\n',
    });
    expect(codex.switchedOff).toEqual({ by: "enabled = false (line 3)", sure: true });
  });
});
