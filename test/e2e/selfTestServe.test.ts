// serve's start-up self-test (config.yaml's tests:, or --self-test, which wins) in front of the real
// server-filesystem: a passing file lets it start and report ready; a failing one refuses the start (exit 2,
// the case's file:line on stderr) before anything listens; an edit of the policy that breaks a case is
// refused with the failing case in the audit event, and the old policy goes on deciding a real call.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, FILESYSTEM_SERVER, NODE, readAudit, ROOT, tempDir } from "./helpers.js";
import { httpClient, serveHttp, textOf, TOKEN, type HttpServe } from "./serveHelpers.js";

const POLICY = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  deny: [move_file]
  approval_required: [write_file]
`;
const LOOSE = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
  deny: [move_file]
`;

// The file's own policy: key names nothing that exists: a self-test tests serve's configuration instead.
const tests = (
  srv: string,
  writes = "{decision: deny, code: E_APPROVAL_REQUIRED}",
): string => `policy: not-this-one.yaml
cases:
  - name: reads are allowed
    call: {tool: read_text_file, arguments: {path: ${srv}/a.txt}}
    expect: {decision: allow}
  - name: writes wait for a person
    call: {server: fs, tool: write_file, arguments: {path: ${srv}/b.txt, content: x}}
    expect: ${writes}
  - name: what the model sees
    list: {}
    expect: {visible: [read_text_file, list_directory, write_file]}
`;

function world() {
  const files = tempDir("tg-self-test-serve-");
  const srv = join(files, "srv");
  mkdirSync(srv);
  writeFileSync(join(srv, "a.txt"), "hello\n");
  const dir = configDir({
    "mcp.json": mcpJson({ fs: { command: NODE, args: [FILESYSTEM_SERVER, srv] } }),
    "config.yaml": "enabled_mcp_servers: all\npolicy: policy.yaml\ntests: policy.tests.yaml\n",
    "policy.yaml": POLICY,
    "policy.tests.yaml": tests(srv),
  });
  return { dir, srv, files, audit: join(files, "audit.jsonl") };
}

const running: HttpServe[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

describe("serve's self-test", () => {
  it("passes before it listens; a reload that breaks a case is refused and the old policy decides a real call", async () => {
    const w = world();
    const serve = await serveHttp(w.dir, ["--token", TOKEN, "--audit-log", w.audit], {}, 60_000);
    running.push(serve);
    const passed = serve.stderr().indexOf("self-test policy.tests.yaml: 3 cases: 3 passed, 0 failed");
    expect(passed).toBeGreaterThanOrEqual(0);
    expect(passed).toBeLessThan(serve.stderr().indexOf("serving MCP"));
    expect((await fetch(new URL("/readyz", serve.url))).status).toBe(200);
    const { client } = await httpClient(serve.url, TOKEN);
    expect(
      textOf(
        await client.callTool({ name: "fs__read_text_file", arguments: { path: join(w.srv, "a.txt") } }),
      ),
    ).toContain("hello");

    // Saved in one step from outside the watched directory: one reload, never of a half-written file.
    writeFileSync(join(w.files, "loose.yaml"), LOOSE);
    renameSync(join(w.files, "loose.yaml"), join(w.dir, "policy.yaml"));
    await expect
      .poll(() => readAudit(w.audit).filter((e) => e.event === "config_reload").length, { timeout: 30_000 })
      .toBe(1);
    expect(serve.stderr()).toContain("E_RELOAD_REFUSED");
    expect(serve.stderr()).toContain(
      `${join(w.dir, "policy.tests.yaml")}:6: FAIL 'writes wait for a person'`,
    );
    expect(serve.stderr()).toMatch(/E_SELF_TEST_FAILED: the self-test policy\.tests\.yaml did not pass/);
    const reloads = readAudit(w.audit).filter((e) => e.event === "config_reload");
    expect(reloads).toMatchObject([{ result: "refused", code: "E_RELOAD_REFUSED", session: "gateway" }]);
    expect((reloads[0]!.errors as string[]).join("\n")).toContain("policy.tests.yaml:6: FAIL");

    const write = (await client.callTool({
      name: "fs__write_file",
      arguments: { path: join(w.srv, "b.txt"), content: "x" },
    })) as { isError?: boolean };
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain("E_APPROVAL_REQUIRED");
    expect(existsSync(join(w.srv, "b.txt"))).toBe(false);
    await client.close();
  }, 120_000);

  it("--self-test wins over tests:, and a failing one refuses the start before anything listens", async () => {
    const w = world();
    const failing = join(w.files, "strict.tests.yaml");
    // config.yaml's tests: pass; this file expects a deny even for a client that can ask its person, which
    // the policy allows (pending the person's answer): it fails, so the start is refused only if it is run.
    writeFileSync(failing, tests(w.srv).replace("content: x}", "content: x}, approval: ask"));
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        NODE,
        [CLI, "serve", "--config-dir", w.dir, "--http", "0", "--token", TOKEN, "--self-test", failing],
        { cwd: ROOT, env: { ...process.env, TOOLGATE_CONFIG_DIR: "" }, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${failing}:6: FAIL 'writes wait for a person': expected decision deny`);
    expect(run.stderr).toContain("got decision allow");
    expect(run.stderr).toMatch(
      /E_SELF_TEST_FAILED: the self-test \S+strict\.tests\.yaml did not pass .*toolgate did not start/,
    );
    expect(run.stderr).not.toContain("serving MCP");
  }, 60_000);
});
