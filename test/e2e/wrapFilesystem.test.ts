// toolgate wrap around the official filesystem server, driven by the official SDK client, with the demo's
// own policy (examples/policy.yaml).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  EXAMPLE_POLICY,
  FILESYSTEM_SERVER,
  NODE,
  outcome,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
  type Connected,
} from "./helpers.js";

const ALLOWED = [
  "directory_tree",
  "get_file_info",
  "list_allowed_directories",
  "list_directory",
  "read_multiple_files",
  "read_text_file",
  "search_files",
];

let workspace: string;
let auditLog: string;
let bare: Connected;
let wrapped: Connected;

/** The bare server's answer for a tool it does not have, with the name it was asked for replaced. */
async function bareUnknownAnswer(name: string): Promise<unknown> {
  const missing = "zz_missing_tool_for_e2e";
  const answer = await outcome(bare.client.callTool({ name: missing, arguments: {} }));
  return JSON.parse(JSON.stringify(answer).split(missing).join(name));
}

beforeAll(async () => {
  const dir = tempDir();
  workspace = join(dir, "workspace");
  mkdirSync(join(workspace, "docs"), { recursive: true });
  writeFileSync(join(workspace, "notes.txt"), "hello\nworld\n");
  writeFileSync(join(workspace, "docs", "readme.md"), "# readme\n");
  auditLog = join(dir, "audit.jsonl");
  bare = await connect({ command: NODE, args: [FILESYSTEM_SERVER, workspace] });
  wrapped = await connect(
    wrapCommand(
      ["--policy", EXAMPLE_POLICY, "--audit-log", auditLog, "--label", "fs-e2e"],
      [NODE, FILESYSTEM_SERVER, workspace],
    ),
  );
});

afterAll(async () => {
  await wrapped?.close();
  await bare?.close();
});

describe("wrap + server-filesystem with examples/policy.yaml", () => {
  it("lists only the allowed tools", async () => {
    const bareTools = (await bare.client.listTools()).tools.map((t) => t.name);
    const shown = (await wrapped.client.listTools()).tools.map((t) => t.name);
    expect(bareTools).toHaveLength(14);
    expect([...shown].sort()).toEqual(ALLOWED);
  });

  it("lets allowed calls through and returns the server's answer", async () => {
    const result = await wrapped.client.callTool({
      name: "read_text_file",
      arguments: { path: "notes.txt" },
    });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "hello\nworld\n" }]);
    const listing = await wrapped.client.callTool({ name: "list_directory", arguments: { path: "." } });
    expect(JSON.stringify(listing.content)).toContain("notes.txt");
  });

  it("denies arguments the schema refuses, naming the code and the argument", async () => {
    for (const args of [
      { path: "../etc/passwd" },
      { path: "/etc/passwd" },
      { path: ".ssh/id_rsa" },
      { path: "notes.txt", extra: 1 },
    ]) {
      const result = await wrapped.client.callTool({ name: "read_text_file", arguments: args });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
        /^Blocked by policy: E_ARG_SCHEMA /,
      );
      // These tools declare an outputSchema the deny object does not fit; SDK clients would reject the
      // whole answer, so the structured part is left out and the text carries code and reason.
      expect(result.structuredContent).toBeUndefined();
    }
    const result = await wrapped.client.callTool({
      name: "read_text_file",
      arguments: { path: "/etc/passwd" },
    });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain("/path");
  });

  it("never runs a denied write_file: no file appears, and the answer is the server's unknown-tool answer", async () => {
    const answer = await outcome(
      wrapped.client.callTool({ name: "write_file", arguments: { path: "evil.txt", content: "pwned" } }),
    );
    expect(existsSync(join(workspace, "evil.txt"))).toBe(false);
    expect(answer).toEqual(await bareUnknownAnswer("write_file"));
  });

  it("answers hidden and nonexistent tools exactly as the bare server answers a tool it does not have", async () => {
    const nonexistent = await outcome(wrapped.client.callTool({ name: "no_such_tool", arguments: {} }));
    const bareNonexistent = await outcome(bare.client.callTool({ name: "no_such_tool", arguments: {} }));
    expect(nonexistent).toEqual(bareNonexistent);
    for (const hidden of ["read_media_file", "move_file", "list_directory_with_sizes"]) {
      const answer = await outcome(
        wrapped.client.callTool({ name: hidden, arguments: { path: "notes.txt" } }),
      );
      expect(answer).toEqual(await bareUnknownAnswer(hidden));
    }
  });

  it("records every decision in the audit log, with an argument digest and never the arguments", async () => {
    const events = readAudit(auditLog);
    const calls = events.filter((e) => e.event === "tools/call");
    const byTool = (tool: string) => calls.filter((e) => e.tool === tool);
    expect(
      events.every(
        (e) =>
          e.session === "fs-e2e" &&
          typeof e.time === "string" &&
          /^[0-9a-f]{64}$/.test(String(e.policy_digest)),
      ),
    ).toBe(true);
    expect(byTool("write_file")).toEqual([
      expect.objectContaining({
        decision: "hidden",
        code: "E_TOOL_DENIED",
        rule: { layer: "policy", kind: "tools.deny", value: "write_file" },
        // RFC 8785 of {"path":"evil.txt","content":"pwned"}: keys sorted.
        args_sha256: createHash("sha256").update('{"content":"pwned","path":"evil.txt"}').digest("hex"),
      }),
    ]);
    expect(byTool("read_media_file")[0]).toMatchObject({ decision: "hidden", code: "E_TOOL_NOT_ALLOWED" });
    expect(byTool("no_such_tool")[0]).toMatchObject({ decision: "hidden", code: null });
    expect(byTool("read_text_file").map((e) => e.decision)).toContain("allow");
    expect(byTool("read_text_file").find((e) => e.decision === "deny")).toMatchObject({
      code: "E_ARG_SCHEMA",
      rule: { layer: "policy", kind: "schemas", value: "read_text_file" },
    });
    const list = events.find((e) => e.event === "tools/list");
    expect(list).toMatchObject({ decision: "filtered", shown: 7, hidden: 7 });
    expect(JSON.stringify(events)).not.toContain("pwned");
  });
});

describe("wrap + server-filesystem with denied_tools: explain", () => {
  it("answers a denied write_file with the structured deny, and the file never appears", async () => {
    const dir = tempDir();
    const ws = join(dir, "ws");
    mkdirSync(ws);
    const policy = writePolicy(
      dir,
      [
        "version: '2.0'",
        "tools:",
        "  deny: [write_file, edit_file]",
        "enforcement:",
        "  denied_tools: explain",
        "  unconstrained_tools: allow",
        "",
      ].join("\n"),
    );
    const session = await connect(wrapCommand(["--policy", policy], [NODE, FILESYSTEM_SERVER, ws]));
    try {
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain("write_file");
      expect(names).toContain("read_text_file");
      const result = await session.client.callTool({
        name: "write_file",
        arguments: { path: "evil.txt", content: "x" },
      });
      expect(result).toMatchObject({
        isError: true,
        structuredContent: {
          status: "deny",
          error_code: "E_TOOL_DENIED",
          tool: "write_file",
          violations: [],
        },
      });
      expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
        /^Blocked by policy: E_TOOL_DENIED /,
      );
      expect(existsSync(join(ws, "evil.txt"))).toBe(false);
    } finally {
      await session.close();
    }
  });
});
