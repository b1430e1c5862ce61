// wrap's start-up self-test in front of the real server-filesystem: a passing test file lets it start; a
// failing one refuses the start (exit 2, the case's file:line on stderr, the host told why) before any
// client is served; an edit of the policy that breaks a case is refused and the old policy goes on deciding
// (a real write stays refused); an edit of the test file itself reloads. A server that never answers
// cannot be tested: the start is refused naming it and the start-up limit.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CLI,
  connect,
  FILESYSTEM_SERVER,
  NODE,
  RawWrapper,
  readAudit,
  ROOT,
  tempDir,
  wrapCommand,
  type Connected,
} from "./helpers.js";

const POLICY = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  deny: [move_file]
  approval_required: [write_file]
`;
// The edit that breaks the second case: writes no longer wait for a person.
const LOOSE = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  deny: [move_file]
`;

// Lines matter: a failing case is reported at its line (the second case is at line 5).
const tests = (srv: string, writes = "{decision: deny, code: E_APPROVAL_REQUIRED}"): string => `cases:
  - name: reads are allowed
    call: {tool: read_text_file, arguments: {path: ${srv}/a.txt}}
    expect: {decision: allow}
  - name: writes wait for a person
    call: {tool: write_file, arguments: {path: ${srv}/b.txt, content: x}}
    expect: ${writes}
  - name: moves are never shown
    call: {tool: move_file, arguments: {source: a, destination: b}}
    expect: {decision: hidden}
`;

function world() {
  const dir = tempDir("tg-self-test-wrap-");
  const srv = join(dir, "srv");
  mkdirSync(srv);
  writeFileSync(join(srv, "a.txt"), "hello\n");
  const policy = join(dir, "policy.yaml");
  writeFileSync(policy, POLICY);
  const cases = join(dir, "policy.tests.yaml");
  writeFileSync(cases, tests(srv));
  return { dir, srv, policy, cases, audit: join(dir, "audit.jsonl") };
}

/**
 * Saves `text` at `path` in one step, as editors do (a file beside it renamed over it): a reload never reads
 * it half written, however slowly a loaded machine writes.
 */
function save(path: string, text: string): void {
  writeFileSync(`${path}.saving`, text);
  renameSync(`${path}.saving`, path);
}

const reloadEvents = (audit: string) => readAudit(audit).filter((e) => e.event === "config_reload");

const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const isError = (result: unknown): boolean => (result as { isError?: boolean }).isError === true;
const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? "").join("");

describe("wrap --self-test", () => {
  it("passes and starts; a reload that breaks a case is refused and the old policy decides; an edited test file reloads", async () => {
    const w = world();
    const c = await connect(
      wrapCommand(
        ["--policy", w.policy, "--self-test", w.cases, "--audit-log", w.audit],
        [NODE, FILESYSTEM_SERVER, w.srv],
      ),
    );
    open.push(c);
    expect(c.stderr()).toContain("self-test");
    expect(c.stderr()).toContain("3 cases: 3 passed, 0 failed");
    expect(
      text(await c.client.callTool({ name: "read_text_file", arguments: { path: join(w.srv, "a.txt") } })),
    ).toContain("hello");

    // The policy loses its approval on writes: the case that guards it fails, the reload is refused.
    save(w.policy, LOOSE);
    await expect.poll(() => reloadEvents(w.audit).length, { timeout: 30_000 }).toBe(1);
    expect(c.stderr()).toContain(`${w.cases}:5: FAIL 'writes wait for a person'`);
    expect(c.stderr()).toMatch(/error E_SELF_TEST_FAILED: the self-test \S+ did not pass/);
    expect(c.stderr()).toContain("E_RELOAD_REFUSED");
    const refused = reloadEvents(w.audit);
    expect(refused).toMatchObject([{ result: "refused", code: "E_RELOAD_REFUSED", new_policy_digest: null }]);
    expect((refused[0]!.errors as string[]).join("\n")).toContain(`${w.cases}:5: FAIL`);

    // The policy in force still asks for a person: a real write is refused and nothing is written.
    const write = await c.client.callTool({
      name: "write_file",
      arguments: { path: join(w.srv, "b.txt"), content: "x" },
    });
    expect(isError(write)).toBe(true);
    expect(text(write)).toContain("E_APPROVAL_REQUIRED");
    expect(existsSync(join(w.srv, "b.txt"))).toBe(false);

    // The change was intended: the case is updated, and that edit alone reloads (the test file is watched).
    save(w.cases, tests(w.srv, "{decision: allow}"));
    await expect.poll(() => reloadEvents(w.audit).length, { timeout: 30_000 }).toBe(2);
    expect(reloadEvents(w.audit)[1]).toMatchObject({
      result: "applied",
      trigger: expect.stringContaining("policy.tests.yaml"),
    });
    const written = await c.client.callTool({
      name: "write_file",
      arguments: { path: join(w.srv, "b.txt"), content: "x" },
    });
    expect(isError(written)).toBe(false);
    expect(existsSync(join(w.srv, "b.txt"))).toBe(true);
  }, 120_000);

  it("a failing self-test refuses the start: exit 2, the case's file:line, the host's initialize answered with why", async () => {
    const w = world();
    writeFileSync(w.policy, LOOSE);
    const raw = new RawWrapper(
      wrapCommand(["--policy", w.policy, "--self-test", w.cases], [NODE, FILESYSTEM_SERVER, w.srv]),
    );
    raw.sendJson({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "host", version: "1" } },
    });
    const answer = await raw.response(1);
    expect(answer).toMatchObject({ error: { message: expect.stringContaining("E_SELF_TEST_FAILED") } });
    expect((await raw.exited).code).toBe(2);
    expect(raw.stderr).toContain(`${w.cases}:5: FAIL 'writes wait for a person': expected decision deny`);
    expect(raw.stderr).toContain("got decision allow");
    expect(raw.stderr).toContain("the server was not started");
    // Nothing of the server reached the client: the only answer is toolgate's refusal.
    expect(raw.messages()).toHaveLength(1);
  }, 60_000);

  it("a server that never answers: the start is refused, naming the server and the start-up limit", async () => {
    const w = world();
    const silent = join(w.dir, "silent.mjs");
    writeFileSync(silent, "setInterval(() => {}, 1000);\n");
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        NODE,
        [
          CLI,
          "wrap",
          "--policy",
          w.policy,
          "--self-test",
          w.cases,
          "--startup-timeout",
          "1",
          "--",
          NODE,
          silent,
        ],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("E_UPSTREAM_START");
    expect(run.stderr).toMatch(/MCP server 'node' \(stdio: .*silent\.mjs\) did not answer within 1 s/);
    expect(run.stderr).toContain("--startup-timeout");
    expect(run.stderr).toMatch(/E_SELF_TEST_FAILED: the self-test \S+ could not run/);
  }, 60_000);
});
