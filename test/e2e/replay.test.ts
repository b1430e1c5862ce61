// `toolgate replay`: a dry-run period through `wrap --audit-log --audit-args` in front of the official
// filesystem server, then the recorded calls decided again under candidates, checked against running each
// candidate live on the same calls.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./configDirHelpers.js";
import {
  connect,
  FILESYSTEM_SERVER,
  NODE,
  outcome,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
} from "./helpers.js";

const CURRENT = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, get_file_info, write_file]
schemas:
  read_text_file:
    type: object
    properties: { path: { type: string, minLength: 1 } }
    required: [path]
`;
// Tightens read_text_file's schema (top-level .txt files only) and removes write_file.
const TIGHTER = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, get_file_info]
schemas:
  read_text_file:
    type: object
    properties: { path: { type: string, pattern: "^[a-z]+\\\\.txt$" } }
    required: [path]
`;
// Loosens: move_file allowed, no schema.
const LOOSER = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, get_file_info, write_file, move_file]
`;

const CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: "read_text_file", arguments: { path: "notes.txt" } },
  { name: "read_text_file", arguments: { path: "docs/readme.md" } },
  { name: "read_text_file", arguments: { path: "notes.txt", head: 1 } },
  { name: "write_file", arguments: { path: "out.txt", content: "x" } },
  { name: "list_directory", arguments: { path: "." } },
  { name: "move_file", arguments: { source: "scratch.txt", destination: "scratch2.txt" } },
  { name: "read_text_file", arguments: { path: "" } },
];

let dir: string;
let recorded: string;
const policies: Record<string, string> = {};

/** A dry-run session under `policy` making CALLS, its audit log at `log`. */
async function dryRun(policy: string, log: string, extra: string[] = []): Promise<void> {
  const workspace = join(dir, `ws-${Math.random().toString(16).slice(2)}`);
  mkdirSync(join(workspace, "docs"), { recursive: true });
  writeFileSync(join(workspace, "notes.txt"), "hello\n");
  writeFileSync(join(workspace, "scratch.txt"), "s\n");
  writeFileSync(join(workspace, "docs", "readme.md"), "# readme\n");
  const wrapped = await connect(
    wrapCommand(
      ["--policy", policy, "--audit-log", log, "--dry-run", ...extra],
      [NODE, FILESYSTEM_SERVER, workspace],
    ),
  );
  try {
    await wrapped.client.listTools();
    for (const call of CALLS) await outcome(wrapped.client.callTool(call));
  } finally {
    await wrapped.close();
  }
}

/** Per call of CALLS: refused (deny or hide, or would) in the log, with its code. */
function verdicts(log: string): { tool: string; refused: boolean; code: unknown }[] {
  return readAudit(log)
    .filter((e) => e.event === "tools/call")
    .map((e) => ({ tool: e.tool as string, refused: e.decision !== "allow", code: e.code }));
}

async function replay(candidate: string, ...more: string[]) {
  const run = await runCli([
    "replay",
    "--policy",
    policies[candidate]!,
    "--format",
    "json",
    ...more,
    recorded,
  ]);
  return { ...run, report: run.code === 2 ? null : (JSON.parse(run.stdout) as Record<string, unknown>) };
}

beforeAll(async () => {
  dir = tempDir("tg-replay-");
  for (const [name, yaml] of Object.entries({ CURRENT, TIGHTER, LOOSER })) {
    policies[name] = writePolicy(dir, yaml, `${name.toLowerCase()}.yaml`);
  }
  recorded = join(dir, "recorded.jsonl");
  await dryRun(policies.CURRENT!, recorded, ["--audit-args"]);
}, 60_000);

describe("replay of a recorded dry run", () => {
  it("--audit-args records each call's arguments in its event", () => {
    const calls = readAudit(recorded).filter((e) => e.event === "tools/call");
    expect(calls).toHaveLength(CALLS.length);
    expect(calls.map((e) => e.args)).toEqual(CALLS.map((c) => c.arguments));
  });

  it("reports exactly the calls a live run of the candidate decides differently", async () => {
    const live = join(dir, "live-tighter.jsonl");
    await dryRun(policies.TIGHTER!, live);
    const before = verdicts(recorded);
    const after = verdicts(live);
    const changed = before.flatMap((b, i) =>
      b.refused === after[i]!.refused ? [] : [{ ...after[i]!, was: b.refused }],
    );
    // The live run: the tightened schema refuses one read, the removed tool hides the write.
    expect(changed).toEqual([
      { tool: "read_text_file", refused: true, code: "E_ARG_SCHEMA", was: false },
      { tool: "write_file", refused: true, code: "E_TOOL_NOT_ALLOWED", was: false },
    ]);

    const { code, report } = await replay("TIGHTER", "--fail-on", "newly-allowed");
    expect(code).toBe(0);
    const denied = report!.newly_denied as {
      tool: string;
      count: number;
      code: string;
      server: unknown;
      principal: string;
    }[];
    expect(denied.map((d) => ({ tool: d.tool, count: d.count, code: d.code }))).toEqual(
      changed.map((c) => ({ tool: c.tool, count: 1, code: c.code })),
    );
    expect(denied.every((d) => d.server === null && d.principal === "stdio")).toBe(true);
    expect(report!.newly_allowed).toEqual([]);
    expect(report!.newly_hidden).toEqual([{ server: null, tool: "write_file", principal: "stdio" }]);
    expect(report!.newly_visible).toEqual([]);
    expect(report!.unchanged).toBe(CALLS.length - changed.length);
    expect(report!.name_only).toBe(0);
  }, 60_000);

  it("--fail-on newly-allowed fails a loosening candidate, and the text says what changed", async () => {
    const { code, report } = await replay("LOOSER", "--fail-on", "newly-allowed");
    expect(code).toBe(1);
    const allowed = report!.newly_allowed as { tool: string; count: number; code: string }[];
    expect(allowed.map((a) => [a.tool, a.count, a.code])).toEqual([
      ["move_file", 1, "E_TOOL_NOT_ALLOWED"],
      ["read_text_file", 1, "E_ARG_SCHEMA"],
    ]);
    expect(report!.newly_visible).toContainEqual({ server: null, tool: "move_file", principal: "stdio" });
    const denied = await runCli([
      "replay",
      "--policy",
      policies.LOOSER!,
      "--fail-on",
      "newly-denied",
      recorded,
    ]);
    expect(denied.code).toBe(0);
    expect(denied.stdout).toContain("newly allowed:");
    expect(denied.stdout).toMatch(/move_file · stdio: 1 call refused before \(E_TOOL_NOT_ALLOWED/);
  });

  it("a log recorded without --audit-args is re-decided by name only, and says so per changed tool", async () => {
    const byName = join(dir, "by-name.jsonl");
    await dryRun(policies.CURRENT!, byName);
    const calls = readAudit(byName).filter((e) => e.event === "tools/call");
    expect(calls).toHaveLength(CALLS.length);
    expect(calls.every((e) => !("args" in e) && typeof e.args_sha256 === "string")).toBe(true);

    // TIGHTER by name: write_file is hidden by its name alone (decided, not name-only); the reads and the
    // listing pass the name stage and keep their recorded verdicts, since their arguments are not there.
    const tighter = await runCli(["replay", "--policy", policies.TIGHTER!, "--format", "json", byName]);
    expect(tighter.code).toBe(0);
    const report = JSON.parse(tighter.stdout) as Record<string, unknown>;
    expect(report.name_only).toBe(5);
    expect(report.newly_denied).toEqual([
      {
        server: null,
        tool: "write_file",
        principal: "stdio",
        count: 1,
        code: "E_TOOL_NOT_ALLOWED",
        rule: { layer: "policy", kind: "tools.allow", value: "(no entry matches)" },
        name_only: 0,
      },
    ]);
    // The schema that refuses docs/readme.md is not checked without the arguments: unchanged, by name.
    expect(report.unchanged).toBe(CALLS.length - 1);

    // LOOSER by name: every call passes the name stage; move_file, hidden before, is allowed now, flagged.
    const looser = await runCli(["replay", "--policy", policies.LOOSER!, byName]);
    expect(looser.code).toBe(0);
    expect(looser.stdout).toMatch(
      /move_file · stdio: 1 call refused before \(E_TOOL_NOT_ALLOWED [^\n]*now allowed [^\n]*\[name only: 1\]/,
    );
    expect(looser.stdout).toContain(
      "name only: 7 calls had no recorded arguments (logged without --audit-args): only their name stage was decided again",
    );
    const json = await runCli(["replay", "--policy", policies.LOOSER!, "--format", "json", byName]);
    const loose = JSON.parse(json.stdout) as {
      name_only: number;
      newly_allowed: { tool: string; name_only: number }[];
    };
    expect(loose.name_only).toBe(7);
    expect(loose.newly_allowed.map((a) => [a.tool, a.name_only])).toEqual([["move_file", 1]]);
  }, 60_000);

  it("refuses a log whose chain is broken, naming file and line", async () => {
    const edited = join(dir, "edited.jsonl");
    const lines = readFileSync(recorded, "utf8").split("\n");
    lines[2] = lines[2]!.replace('"allow"', '"deny"');
    writeFileSync(edited, lines.join("\n"));
    const run = await runCli(["replay", "--policy", policies.TIGHTER!, edited]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("E_AUDIT_CHAIN");
    expect(run.stderr).toMatch(new RegExp(`${edited.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3`));
    expect(run.stdout).toBe("");
  });
});
