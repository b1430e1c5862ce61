// The one place where a hidden tool can be told from a missing one, pinned down exactly: a server whose
// handler reads the arguments before it looks at the tool's name (as mcp-server-git reads `repo_path` and
// opens the repository first) answers an unknown tool differently depending on the arguments. toolgate
// learns the answer once, for an unknown name with no arguments, and answers every hidden call with it: to
// match the answer for a call's own arguments it would have to send them to the server, and a hidden call's
// arguments never reach a server. The server here is written in the test (it does what mcp-server-git does,
// in that order), so every byte is under the test's control.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect, NODE, outcome, tempDir, wrapCommand, writePolicy, type Connected } from "./helpers.js";

const ARGUMENTS_FIRST = `
const fs = require("node:fs");
let buffer = "";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const text = (id, t, isError) => send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) } });
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (m.method === "initialize") {
      send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "git-like", version: "1" } } });
    } else if (m.method === "tools/list") {
      const schema = { type: "object", properties: { repo_path: { type: "string" } }, required: ["repo_path"] };
      send({ jsonrpc: "2.0", id: m.id, result: { tools: ["git_status", "git_push"].map((name) => ({ name, inputSchema: schema })) } });
    } else if (m.method === "tools/call") {
      fs.appendFileSync(process.env.CALLS, JSON.stringify(m.params) + "\\n");
      const args = m.params.arguments ?? {};
      // The order of mcp-server-git: the arguments first, then the repository, then the name.
      if (!("repo_path" in args)) text(m.id, "'repo_path'", true);
      else if (!fs.existsSync(args.repo_path + "/.git")) text(m.id, String(args.repo_path), true);
      else if (m.params.name === "git_status") text(m.id, "Repository status: clean");
      else if (m.params.name === "git_push") text(m.id, "pushed");
      else text(m.id, "Unknown tool: " + m.params.name, true);
    } else if (m.id !== undefined) {
      send({ jsonrpc: "2.0", id: m.id, result: {} });
    }
  }
});
`;

const dir = tempDir("tg-argsfirst-");
const serverFile = join(dir, "gitlike.cjs");
writeFileSync(serverFile, ARGUMENTS_FIRST);
const repo = join(dir, "repo");
mkdirSync(join(repo, ".git"), { recursive: true });
const open: Connected[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

const start = async (calls: string, wrapArgs: string[] | null) => {
  const command =
    wrapArgs === null ? { command: NODE, args: [serverFile] } : wrapCommand(wrapArgs, [NODE, serverFile]);
  const c = await connect({ ...command, env: { CALLS: calls } });
  open.push(c);
  return c;
};

describe("a server that reads arguments before the tool's name", () => {
  it("bare, it answers an unknown tool by its arguments; wrapped, a hidden call gets the no-arguments answer and its arguments never reach it", async () => {
    const bare = await start(join(dir, "bare.jsonl"), null);
    const unknown = (args: Record<string, unknown>) =>
      outcome(bare.client.callTool({ name: "not_a_tool", arguments: args }));
    const withoutArgs = await unknown({});
    const withRepo = await unknown({ repo_path: repo });
    // The limit itself: the bare server's answer depends on the arguments.
    expect(withoutArgs).not.toEqual(withRepo);
    expect(JSON.stringify(withRepo)).toContain("Unknown tool: not_a_tool");

    const calls = join(dir, "wrapped.jsonl");
    const policy = writePolicy(
      dir,
      `version: "2.0"\ntools:\n  deny: ["git_push"]\nenforcement: { unconstrained_tools: allow }\n`,
    );
    const wrapped = await start(calls, ["--policy", policy]);
    expect((await wrapped.client.listTools()).tools.map((t) => t.name)).toEqual(["git_status"]);
    const hidden = await outcome(
      wrapped.client.callTool({ name: "git_push", arguments: { repo_path: repo } }),
    );
    expect(hidden).toEqual(withoutArgs);
    // A visible tool still works, with its arguments.
    const status = await outcome(
      wrapped.client.callTool({ name: "git_status", arguments: { repo_path: repo } }),
    );
    expect(JSON.stringify(status)).toContain("Repository status: clean");

    const received = readFileSync(calls, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name: string; arguments: object });
    expect(received.filter((p) => p.name === "git_push")).toEqual([]);
    // The probe carried no arguments; only the visible call carried the path.
    expect(received.filter((p) => p.name.startsWith("toolgate-probe-"))).toEqual([
      { name: expect.stringMatching(/^toolgate-probe-[0-9a-f]{16}$/), arguments: {} },
    ]);
    expect(received.filter((p) => JSON.stringify(p).includes(repo)).map((p) => p.name)).toEqual([
      "git_status",
    ]);
    expect(existsSync(join(repo, ".git"))).toBe(true);
  });
});
