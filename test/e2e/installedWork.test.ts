// The first real task after `toolgate install claude-code`, on the real server-filesystem: Claude Code 2.1.332
// adds the server and, once installed, connects through toolgate; the entry exactly as Claude Code stores it
// then carries a 5 KB write, an empty file and a deleting edit, each approved by the person (MCP elicitation,
// as the official SDK client offers it) and each done by the server; create_directory asks too; a write
// outside the server's directory is refused before anyone is asked. The MCP Inspector CLI, which cannot ask
// a person, gets a refusal that names the policy file and the ways to approve. The same starter policy under
// `serve --http --dashboard`: the Inspector's calls wait, an operator approves them in Chromium, and they go
// through. The installed entry's audit log, read by `policy suggest --policy`, keeps every approval.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { DASHBOARD_TOKEN, launchBrowser, signIn } from "./dashboardHelpers.js";
import { CLI, connect, FILESYSTEM_SERVER, NODE, readAudit, tempDir, type Connected } from "./helpers.js";
import { claude, CLAUDE_CODE, INSPECTOR, installedBin } from "./realClients.js";
import { serveHttp, textOf, type HttpServe } from "./serveHelpers.js";

const home = tempDir("tg-work-home-");
const project = join(home, "proj");
const root = join(home, "work");
const outside = join(home, "outside");
const policyFile = join(home, ".config/toolgate/policies/claude-code/fs.yaml");
const auditLog = join(home, ".config/toolgate/audit/claude-code/fs.jsonl");
const KB5 = "export const line = 'x';\n".repeat(205);

interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function toolgate(args: string[]) {
  return spawnSync(NODE, [CLI, ...args], {
    cwd: home,
    encoding: "utf8",
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  });
}

/** The three calls of the first real task: each is valid for the server, none is read-only. */
function work(
  prefix: string,
  tag: string,
): Array<{ tool: string; args: Record<string, unknown>; done: () => boolean }> {
  const big = join(root, `${tag}-big.ts`);
  const empty = join(root, `${tag}-empty.txt`);
  const edited = join(root, "notes.txt");
  return [
    {
      tool: `${prefix}write_file`,
      args: { path: big, content: KB5 },
      done: () => readFileSync(big, "utf8") === KB5,
    },
    {
      tool: `${prefix}write_file`,
      args: { path: empty, content: "" },
      done: () => readFileSync(empty, "utf8") === "",
    },
    {
      tool: `${prefix}edit_file`,
      args: { path: edited, edits: [{ oldText: `drop-${tag}\n`, newText: "" }] },
      done: () => !readFileSync(edited, "utf8").includes(`drop-${tag}`),
    },
  ];
}

const inspectorEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  MCP_INSPECTOR_SECRET_STORE: "memory",
};

/** The Inspector CLI's flags for one tools/call, the arguments verbatim (no key=value coercion). */
function callArgs(tool: string, args: Record<string, unknown>): string[] {
  return [
    "--format",
    "json",
    "--method",
    "tools/call",
    "--tool-name",
    tool,
    "--tool-args-json",
    JSON.stringify(args),
  ];
}

/** The call's result: with -q the Inspector prints it on stdout, also when it is an error (exit status 5). */
function resultOf(status: number | null, stdout: string, stderr: string): Record<string, unknown> {
  expect([0, 5], stderr).toContain(status);
  return (JSON.parse(stdout) as { result: Record<string, unknown> }).result;
}

let claudeBin = "";
let inspectorBin = "";
let entry: Entry;

beforeAll(() => {
  claudeBin = installedBin(CLAUDE_CODE, "claude");
  inspectorBin = installedBin(INSPECTOR, "mcp-inspector");
  for (const dir of [project, root, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, "notes.txt"), "keep\ndrop-elicited\ndrop-dashboard\n");
  const added = claude(
    claudeBin,
    home,
    ["mcp", "add", "-s", "user", "fs", "--", "node", FILESYSTEM_SERVER, root],
    project,
  );
  expect(added.status, added.stderr).toBe(0);
  const installed = toolgate(["install", "claude-code"]);
  expect(installed.status, installed.stderr).toBe(0);
  expect(installed.stderr).toContain(auditLog);
  entry = (JSON.parse(readFileSync(join(home, ".claude.json"), "utf8")) as { mcpServers: { fs: Entry } })
    .mcpServers.fs;
}, 600_000);

describe("after toolgate install claude-code, in front of server-filesystem", () => {
  it("Claude Code connects to the server through toolgate wrap", () => {
    expect(entry.args).toContain("wrap");
    expect(entry.args).toContain(policyFile);
    const get = claude(claudeBin, home, ["mcp", "get", "fs"], project);
    expect(get.stdout).toContain("Status: ✔ Connected");
  }, 120_000);

  describe("the entry as Claude Code stores it, run by a client whose person approves", () => {
    let c: Connected;
    const questions: string[] = [];
    beforeAll(async () => {
      c = await connect(entry, { capabilities: { elicitation: { form: {} } } }, (client) =>
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          questions.push(String(request.params.message));
          return { action: "accept", content: { approve: true } };
        }),
      );
    }, 120_000);
    afterAll(async () => {
      await c?.close();
    });

    it("a 5 KB write, an empty file and a deleting edit: the person is asked about each, the server does each", async () => {
      for (const call of work("", "elicited")) {
        const before = questions.length;
        const result = await c.client.callTool({ name: call.tool, arguments: call.args });
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(questions.length - before, call.tool).toBe(1);
        expect(questions.at(-1)).toContain(`Tool: ${call.tool}`);
        expect(call.done(), call.tool).toBe(true);
      }
    }, 120_000);

    it("create_directory asks; a write outside the server's directory is refused before anyone is asked", async () => {
      const before = questions.length;
      const made = await c.client.callTool({
        name: "create_directory",
        arguments: { path: join(root, "made") },
      });
      expect(made.isError, textOf(made)).toBeFalsy();
      expect(questions.length).toBe(before + 1);
      expect(existsSync(join(root, "made"))).toBe(true);

      const out = await c.client.callTool({
        name: "write_file",
        arguments: { path: join(outside, "escape.txt"), content: "no" },
      });
      expect(out.isError).toBe(true);
      expect(textOf(out)).toMatch(/^Blocked by policy: E_SCOPE_VIOLATION /);
      expect(textOf(out)).toContain("would also need a person's approval");
      expect(questions.length).toBe(before + 1);
      expect(existsSync(join(outside, "escape.txt"))).toBe(false);
    }, 60_000);
  });

  describe("the MCP Inspector CLI, which cannot ask a person, through the same entry", () => {
    const inspectorConfig = join(home, "inspector.json");
    beforeAll(() => writeFileSync(inspectorConfig, JSON.stringify({ mcpServers: { fs: entry } })));

    function inspector(tool: string, args: Record<string, unknown>) {
      const run = spawnSync(
        inspectorBin,
        ["--cli", "-q", "--config", inspectorConfig, "--server", "fs", ...callArgs(tool, args)],
        { cwd: home, encoding: "utf8", timeout: 120_000, env: inspectorEnv },
      );
      return resultOf(run.status, run.stdout, run.stderr);
    }

    it("reads go through; a write is refused with the policy file, its rule and the ways to approve", () => {
      const read = inspector("read_text_file", { path: join(root, "notes.txt") });
      expect(read.isError).not.toBe(true);
      expect(textOf(read)).toContain("keep");

      const target = join(root, "inspector.txt");
      const write = inspector("write_file", { path: target, content: "hi" });
      expect(write.isError).toBe(true);
      const text = textOf(write);
      expect(text).toMatch(/^Blocked by policy: E_APPROVAL_REQUIRED tool 'write_file' requires approval/);
      expect(text).toMatch(
        new RegExp(`Required by ${policyFile.replace(/[.]/g, "\\.")}:\\d+:\\d+, tools\\.approval_required`),
      );
      expect(text).toContain("a client with MCP form elicitation");
      expect(text).toContain("toolgate approve --tool write_file");
      expect(existsSync(target)).toBe(false);
    }, 240_000);
  });

  describe("the same starter policy under serve --http --dashboard: an operator approves in Chromium", () => {
    const AGENT = "e2e-agent-token-0123456789abcdef";
    const serveLog = join(home, "serve-audit.jsonl");
    let served: HttpServe;
    let browser: Browser;
    let page: Page;
    beforeAll(async () => {
      const config = configDir({
        "mcp.json": mcpJson({ fs: { command: NODE, args: [FILESYSTEM_SERVER, root] } }),
        "config.yaml": "enabled_mcp_servers: all\n",
        "tokens.yaml": [
          `- name: agent\n  token: ${AGENT}`,
          `- name: alice\n  token: ${DASHBOARD_TOKEN}\n  use: [dashboard]\n  dashboard: approver`,
        ].join("\n"),
      });
      served = await serveHttp(config, [
        "--dashboard",
        "--policy",
        policyFile,
        "--tokens",
        join(config, "tokens.yaml"),
        "--audit-log",
        serveLog,
        "--approval-timeout",
        "60",
      ]);
      browser = await launchBrowser();
      page = await browser.newPage();
      const origin = new URL(served.url).origin;
      await signIn(page, { url: `${origin}/ui/`, origin, stderr: served.stderr, stop: served.stop });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await served?.stop();
    });

    /** The Inspector CLI's call over Streamable HTTP with the agent's token, answered when it ends. */
    function inspectorCall(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
      const child = spawn(
        inspectorBin,
        [
          "--cli",
          "-q",
          "--transport",
          "http",
          "--server-url",
          served.url,
          "--header",
          `Authorization: Bearer ${AGENT}`,
          ...callArgs(tool, args),
        ],
        { cwd: home, env: inspectorEnv },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
      child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
      return new Promise((resolve, reject) =>
        child.on("exit", (code) => {
          try {
            resolve(resultOf(code, out, err));
          } catch (error) {
            reject(error as Error);
          }
        }),
      );
    }

    it("each call of the task waits on the approvals page; approved, the server does it", async () => {
      const origin = new URL(served.url).origin;
      for (const call of work("fs__", "dashboard")) {
        const answer = inspectorCall(call.tool, call.args);
        await page.goto(`${origin}/ui/approvals`);
        const waiting = page.locator(`section.approval[data-tool="${call.tool.slice(4)}"]`);
        await waiting
          .first()
          .waitFor({ timeout: 60_000 })
          .catch((error: Error) => {
            throw new Error(`${error.message}\nserve said:\n${served.stderr()}`);
          });
        await waiting.first().getByRole("button", { name: "Approve" }).click();
        const result = await answer;
        expect(result.isError, textOf(result)).not.toBe(true);
        expect(call.done(), call.tool).toBe(true);
      }
      const approved = readAudit(serveLog).filter((e) => e.event === "tools/call" && e.decision === "allow");
      expect(approved.map((e) => e.tool)).toEqual(["write_file", "write_file", "edit_file"]);
      for (const e of approved) {
        expect(e).toMatchObject({
          principal: "agent",
          approval: { elicitation: { outcome: "accept", approver: "alice" } },
        });
      }
    }, 300_000);

    it("a write outside the directory never reaches the approvals page", async () => {
      const result = await inspectorCall("fs__write_file", { path: join(outside, "x.txt"), content: "no" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("E_SCOPE_VIOLATION");
      expect(existsSync(join(outside, "x.txt"))).toBe(false);
    }, 120_000);
  });

  it("the installed entry logged every decision; policy suggest --policy keeps the approvals", () => {
    const calls = readAudit(auditLog).filter((e) => e.event === "tools/call");
    expect(calls.filter((e) => e.decision === "allow").map((e) => e.tool)).toEqual(
      expect.arrayContaining(["write_file", "edit_file", "create_directory", "read_text_file"]),
    );
    const suggested = toolgate(["policy", "suggest", "--from-audit", auditLog, "--policy", policyFile]);
    expect(suggested.status, suggested.stderr).toBe(0);
    const proposed = parse(suggested.stdout) as { tools: { allow: string[]; approval_required: string[] } };
    expect(proposed.tools.allow).toEqual(
      expect.arrayContaining(["write_file", "edit_file", "create_directory"]),
    );
    expect(proposed.tools.approval_required).toEqual(
      expect.arrayContaining(["write_file", "edit_file", "create_directory"]),
    );
    expect(proposed.tools.approval_required).not.toContain("read_text_file");
  }, 120_000);
});
