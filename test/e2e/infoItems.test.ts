// `toolgate info` with the policy's opt-in resources: and prompts: sections, as the built CLI against the
// real server-everything (resources, templates, prompts) and server-filesystem (tools only): each item's
// verdict as serve and wrap decide it, the sections' rules in the header, entries that match nothing the
// server offers (W_ITEM_UNMATCHED), and nothing new at all for a policy without a section.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, tempDir } from "./helpers.js";

const POLICY = `version: "2.0"
resources:
  deny: ["demo://resource/dynamic/blob/{resourceId}", "demo://resource/static/document/architecture.md", "demo://nowhere/*"]
prompts:
  allow: ["simple-prompt", "args-*", "resource-prompt"]
  deny: ["everything__args-prompt"]
`;

let dir: string;

beforeAll(() => {
  const fsRoot = join(tempDir("tg-info-items-"), "root");
  mkdirSync(fsRoot);
  dir = configDir({
    "mcp.json": mcpJson({
      everything: { command: NODE, args: [EVERYTHING_SERVER] },
      fs: { command: NODE, args: [FILESYSTEM_SERVER, fsRoot] },
    }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "items.yaml": POLICY,
    "tools-only.yaml": 'version: "2.0"\ntools:\n  deny: ["get-env"]\n',
  });
});

const info = (server: string, policy: string, format = "text") =>
  runCli(["info", server, "--config-dir", dir, "--policy", join(dir, policy), "--format", format], {
    timeoutMs: 50_000,
  });

describe("info: resources and prompts under the policy", () => {
  it("shows each section's rules, and every resource, template and prompt with its verdict", async () => {
    const run = await info("everything", "items.yaml");
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines).toContain(
      "resources      allow: (no allowlist: every resource not denied) · deny: demo://resource/dynamic/blob/{resourceId} | demo://resource/static/document/architecture.md | demo://nowhere/*",
    );
    expect(lines).toContain(
      "prompts        allow: simple-prompt | args-* | resource-prompt · deny: everything__args-prompt",
    );
    expect(lines).toContain("resources (6 allowed / 7 total)");
    expect(lines.find((l) => l.includes("architecture.md") && l.startsWith("  "))).toMatch(
      /^ {2}✗ demo:\/\/resource\/static\/document\/architecture\.md +hidden by resources\.deny 'demo:\/\/resource\/static\/document\/architecture\.md' \(E_RESOURCE_DENIED\)$/,
    );
    expect(lines).toContain("  ✓ demo://resource/static/document/features.md");
    expect(lines).toContain("resource templates (1 allowed / 2 total)");
    expect(lines).toContain("  ✓ demo://resource/dynamic/text/{resourceId}");
    expect(lines).toContain("prompts (2 allowed / 4 total)");
    // Denied by its name through the gateway; left out by the allowlist; allowed by an entry.
    expect(lines.find((l) => l.startsWith("  ✗ args-prompt"))).toMatch(
      /hidden by prompts\.deny 'everything__args-prompt' \(E_PROMPT_DENIED\)$/,
    );
    expect(lines.find((l) => l.startsWith("  ✗ completable-prompt"))).toMatch(
      /hidden: matches no prompts\.allow entry \(E_PROMPT_NOT_ALLOWED\)$/,
    );
    expect(lines.find((l) => l.startsWith("  ✓ simple-prompt"))).toMatch(/simple-prompt \(prompts\.allow\)$/);
    // The entry that matches nothing the server offers, in the view and as a warning with file and line.
    expect(lines).toContain(
      "⚠ resources.deny entry 'demo://nowhere/*' matches nothing 'everything' offers (none of its resources, templates, or the URIs its templates expand to)",
    );
    expect(run.stderr).toContain("items.yaml:3:");
    expect(run.stderr).toMatch(/warning W_ITEM_UNMATCHED resources\.deny\[2\]/);
    expect(run.stderr).not.toMatch(/W_ITEM_UNMATCHED prompts/);
  });

  it("--format json carries the same verdicts", async () => {
    const run = await info("everything", "items.yaml", "json");
    expect(run.code).toBe(0);
    const view = JSON.parse(run.stdout) as {
      itemRules: { section: string }[];
      items: { list: string; rows: unknown[] }[];
      unmatchedItemPatterns: unknown[];
    };
    expect(view.itemRules.map((r) => r.section)).toEqual(["resources", "prompts"]);
    const templates = view.items.find((l) => l.list === "templates");
    expect(templates).toMatchObject({ offered: true, allowed: 1, total: 2 });
    expect(templates!.rows).toContainEqual({
      name: "demo://resource/dynamic/blob/{resourceId}",
      visible: false,
      code: "E_RESOURCE_DENIED",
      rule: { kind: "resources.deny", value: "demo://resource/dynamic/blob/{resourceId}" },
    });
    expect(view.unmatchedItemPatterns).toEqual([
      expect.objectContaining({ section: "resources", field: "deny", pattern: "demo://nowhere/*", line: 3 }),
    ]);
  });

  it("server-filesystem offers no resources or prompts: the view says so, and its tools are as without the sections", async () => {
    const run = await info("fs", "items.yaml");
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("capabilities   tools");
    expect(lines).toContain("resources or resource templates (none: the server does not offer resources)");
    expect(lines).toContain("prompts (none: the server does not offer prompts)");
    expect(run.stderr).toContain(
      "W_ITEM_UNMATCHED resources: the resources: section has nothing to filter on 'fs': the server offers no resources or resource templates",
    );
    const bare = await runCli(["info", "fs", "--config-dir", dir], { timeoutMs: 50_000 });
    const toolRows = (text: string) =>
      text.split("\n").filter((l) => /^ {2}[✓✗] /.test(l) && !l.includes("://"));
    expect(toolRows(run.stdout).map((l) => l.slice(0, 4) + l.slice(4).split(" ")[0])).toEqual(
      toolRows(bare.stdout).map((l) => l.slice(0, 4) + l.slice(4).split(" ")[0]),
    );
    expect(toolRows(run.stdout).length).toBeGreaterThan(5);
  });

  it("a policy without either section adds nothing to the view", async () => {
    const run = await info("everything", "tools-only.yaml");
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/^(resources|prompts|resource templates)/m);
    const json = JSON.parse((await info("everything", "tools-only.yaml", "json")).stdout) as object;
    expect(Object.keys(json)).not.toContain("items");
    expect(Object.keys(json)).not.toContain("itemRules");
  });
});
