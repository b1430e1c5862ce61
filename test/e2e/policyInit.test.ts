// `toolgate policy init` against the real server-filesystem: the starter policy loads without a warning,
// read-only tools (readOnlyHint) are allowed, every other one needs a person, every tool has a closed
// schema and a pin, and wrap enforces all of it against the same server (test/e2e/starterPolicies.test.ts
// has each tool's own calls).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "./configDirHelpers.js";
import { connect, FILESYSTEM_SERVER, NODE, tempDir, wrapCommand } from "./helpers.js";

const root = tempDir("tg-init-");
writeFileSync(join(root, "notes.txt"), "hello\n");

describe("toolgate policy init", () => {
  const file = join(tempDir("tg-init-out-"), "policy.yaml");

  it("writes a starter policy that validates with no warning", async () => {
    const run = await runCli(["policy", "init", "--output", file, "--", NODE, FILESYSTEM_SERVER, root]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`wrote a starter policy to ${file}`);
    const validate = await runCli(["policy", "validate", "--input", file]);
    expect(validate.stdout).toContain("valid (version 2.0, 0 warnings)");
    const policy = parse(readFileSync(file, "utf8")) as {
      tools: { allow: string[]; approval_required: string[] };
      schemas: Record<string, { additionalProperties?: boolean }>;
      tool_pins: Record<string, unknown>;
      enforcement: Record<string, string>;
    };
    expect(policy.tools.allow).toEqual(
      expect.arrayContaining(["read_text_file", "list_directory", "write_file"]),
    );
    expect(policy.tools.approval_required).toEqual(
      expect.arrayContaining(["write_file", "edit_file", "move_file"]),
    );
    expect(policy.tools.approval_required).not.toContain("read_text_file");
    // destructiveHint: false, but no readOnlyHint: it changes things, so a person approves it.
    expect(policy.tools.approval_required).toContain("create_directory");
    expect(Object.keys(policy.schemas).sort()).toEqual([...policy.tools.allow].sort());
    expect(Object.values(policy.schemas).every((s) => s.additionalProperties === false)).toBe(true);
    expect(Object.keys(policy.tool_pins).sort()).toEqual([...policy.tools.allow].sort());
    expect(policy.enforcement).toEqual({ unconstrained_tools: "deny", unpinned_tools: "deny" });
    expect(readFileSync(file, "utf8")).toContain("# readOnlyHint: the server says it changes nothing");
  });

  it("keeps an existing file unless --force", async () => {
    const run = await runCli(["policy", "init", "--output", file, "--", NODE, FILESYSTEM_SERVER, root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("exists; toolgate policy init keeps it");
  });

  it("is enforced by wrap against the same server", async () => {
    const c = await connect(wrapCommand(["--policy", file], [NODE, FILESYSTEM_SERVER, root]));
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("read_text_file");
      const read = (await c.client.callTool({
        name: "read_text_file",
        arguments: { path: join(root, "notes.txt") },
      })) as {
        content: Array<{ text: string }>;
      };
      expect(read.content[0]!.text).toBe("hello\n");
      const extra = (await c.client.callTool({
        name: "read_text_file",
        arguments: { path: join(root, "notes.txt"), surprise: 1 },
      })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(extra.content[0]!.text).toMatch(/^Blocked by policy: E_ARG_SCHEMA .*surprise/);
      const target = join(root, "new.txt");
      const write = (await c.client.callTool({
        name: "write_file",
        arguments: { path: target, content: "x" },
      })) as {
        content: Array<{ text: string }>;
      };
      expect(write.content[0]!.text).toMatch(/^Blocked by policy: E_APPROVAL_REQUIRED /);
      expect(existsSync(target)).toBe(false);
    } finally {
      await c.close();
    }
  });
});
