import { describe, expect, it } from "vitest";
import {
  completeLine,
  CONSOLE_COMMANDS,
  type CompletionContext,
} from "../../../../src/cli/console/completion.js";

const ctx: CompletionContext = {
  servers: ["github", "gitlab", "slack"],
  aliases: ["git"],
  roles: ["reviewer", "writer"],
  agents: ["helper", "pipeline"],
  sessions: ["saved", "work"],
  skills: ["triage", "blocker"],
  loadedSkills: ["triage"],
  nodes: ["review", "summarize"],
};

describe("console tab completion", () => {
  it.each<[string, string[], string]>([
    ["", [...CONSOLE_COMMANDS], ""],
    [".", [...CONSOLE_COMMANDS], "."],
    [".s", [".set", ".session", ".skill"], ".s"],
    [".info ", ["mcp-server", "tools"], ""],
    [".info m", ["mcp-server"], "m"],
    [".info mcp-server ", ["github", "gitlab", "slack"], ""],
    [".info mcp-server gi", ["github", "gitlab"], "gi"],
    [".list ", ["mcp-servers"], ""],
    // Spec: mcp_tools.<server> for every configured server and alias.
    [".set ", ["mcp_tools", "mcp_tools.github", "mcp_tools.gitlab", "mcp_tools.slack", "mcp_tools.git"], ""],
    [".set mcp_tools.gi", ["mcp_tools.github", "mcp_tools.gitlab", "mcp_tools.git"], "mcp_tools.gi"],
    [".set mcp_tools.github ", ["null"], ""],
    [".set mcp_tools n", ["null"], "n"],
    [".mcp ", ["enable", "disable"], ""],
    [".mcp enable ", ["github", "gitlab", "slack", "git"], ""],
    [".mcp disable s", ["slack"], "s"],
    [".role ", ["reviewer", "writer"], ""],
    [".role w", ["writer"], "w"],
    [".agent p", ["pipeline"], "p"],
    [".session ", ["saved", "work"], ""],
    [".skill ", ["load", "unload"], ""],
    [".skill load ", ["blocker"], ""],
    [".skill unload ", ["triage"], ""],
    [".node ", ["review", "summarize"], ""],
    [".help ", [], ""],
    [".info tools x", [], "x"],
    [".set mcp_tools.github get_* ", [], ""],
  ])("%j", (line, hits, token) => {
    expect(completeLine(line, ctx)).toEqual([hits, token]);
  });
});
