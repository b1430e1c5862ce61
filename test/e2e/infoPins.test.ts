// The verdict views apply the pin stage like the gate: against server-everything with echo pinned right,
// get-sum pinned wrong and unpinned tools withheld, `toolgate info` and the console's .info mcp-server show
// exactly the tools serve lists, the others ✗ hidden by the pins layer. Several skills are named apart.
import { describe, expect, it } from "vitest";
import { pinForTool } from "../../src/engine/pins/exactHash.js";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { connect, EVERYTHING_SERVER, NODE } from "./helpers.js";
import { serveStdio } from "./serveHelpers.js";

async function everythingTools() {
  const bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
  try {
    return (await bare.client.listTools()).tools;
  } finally {
    await bare.close();
  }
}

describe("pins in the verdict view", () => {
  it("info, the console and serve agree on what pins withhold", async () => {
    const tools = await everythingTools();
    const pin = (name: string, wrong = false) => {
      const p = pinForTool(
        tools.find((t) => t.name === name)!,
        undefined,
        "everything",
      );
      const hash = wrong ? "0".repeat(64) : p.schema_hash;
      return `  ${name}:\n    server_id: everything\n    tool_name: ${name}\n    schema_hash: "${hash}"\n    meta_hash: "${p.meta_hash}"\n`;
    };
    const dir = configDir({
      "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\npolicy: policy.yaml\n",
      "policy.yaml": `version: "2.0"\ntool_pins:\n${pin("echo")}${pin("get-sum", true)}enforcement:\n  unconstrained_tools: allow\n  unpinned_tools: deny\n`,
    });
    const info = await runCli(["info", "everything", "--config-dir", dir]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/pins \(policy\.yaml\): 2 pins; unpinned tools withheld/);
    expect(info.stdout).toMatch(/tools \(1 allowed \/ \d+ total\)/);
    expect(info.stdout).toMatch(/✓ echo/);
    expect(info.stdout).toMatch(/✗ get-sum +hidden by pins layer/);
    expect(info.stdout).toMatch(/✗ get-env +hidden by pins layer/);

    const consoleRun = await runCli(["console", "--config-dir", dir], {
      input: ".info mcp-server everything\n.exit\n",
    });
    expect(consoleRun.stdout).toMatch(/✗ get-sum +hidden by pins layer/);
    expect(consoleRun.stdout).toMatch(/tools \(1 allowed/);

    const served = await serveStdio(dir);
    try {
      expect((await served.client.listTools()).tools.map((t) => t.name)).toEqual(["everything__echo"]);
    } finally {
      await served.close();
    }
  });
});

describe("several skills", () => {
  it("each skill layer is named by its skill in ✗ rows and ⚠ lines", async () => {
    const skill = (name: string, patterns: string) =>
      `---\nenabled_mcp_servers: everything\nmcp_tools:\n  everything: ${patterns}\n---\n# ${name}\n`;
    const dir = configDir({
      "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
      "skills/triage/SKILL.md": skill("triage", "echo,get-*,typo_*"),
      "skills/math/SKILL.md": skill("math", "get-sum"),
    });
    const info = await runCli([
      "info",
      "everything",
      "--config-dir",
      dir,
      "--skill",
      "triage",
      "--skill",
      "math",
    ]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/✓ get-sum +get-\* \(skill \(triage\)\) ∧ get-sum \(skill \(math\)\)/);
    expect(info.stdout).toMatch(/✗ echo +hidden by skill \(math\) layer/);
    expect(info.stdout).toMatch(/✗ trigger-long-running-operation +hidden by skill \(triage\) layer/);
    expect(info.stdout).toContain("⚠ skill (triage) pattern 'typo_*' matches no allowed tools");
  });
});
