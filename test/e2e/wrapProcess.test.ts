// The wrapper as a process: refusing to start on a bad policy, exit statuses, signals, shutdown, audit
// failures, dry run and verbose output.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  alive,
  childPids,
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  FIXTURES,
  NODE,
  RawWrapper,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
} from "./helpers.js";

const LIFECYCLE = join(FIXTURES, "lifecycleServer.mjs");
let wrapper: RawWrapper | undefined;

afterEach(async () => {
  await wrapper?.close();
  wrapper = undefined;
});

async function waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

function start(wrapArgs: string[], server: string[]): RawWrapper {
  wrapper = new RawWrapper(wrapCommand(wrapArgs, server));
  return wrapper;
}

describe("refusing to start", () => {
  it("a missing policy file: exit 2, the error on stderr, the server never started", async () => {
    const dir = tempDir();
    const w = start(["--policy", join(dir, "nope.yaml")], [NODE, LIFECYCLE, dir, "normal"]);
    expect((await w.exited).code).toBe(2);
    expect(w.stderr).toContain("E_POLICY_READ");
    expect(existsSync(join(dir, "started"))).toBe(false);
  });

  it("an invalid policy file: exit 2, every diagnostic with file:line:col, the server never started", async () => {
    const dir = tempDir();
    const policy = writePolicy(
      dir,
      'version: "2.0"\ntools:\n  allow: "read_file"\nlimits:\n  max_tool_calls_total: -1\n',
    );
    const w = start(["--policy", policy], [NODE, LIFECYCLE, dir, "normal"]);
    expect((await w.exited).code).toBe(2);
    const errors = w.stderr.split("\n").filter((l) => l.includes(": error "));
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toMatch(
      new RegExp(`^${policy.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+: error E_`),
    );
    expect(existsSync(join(dir, "started"))).toBe(false);
  });

  it("an audit log that cannot be opened: exit 2, the server never started", async () => {
    const dir = tempDir();
    const w = start(["--audit-log", join(dir, "no/such/dir/audit.jsonl")], [NODE, LIFECYCLE, dir, "normal"]);
    expect((await w.exited).code).toBe(2);
    expect(w.stderr).toContain("cannot open audit log");
    expect(existsSync(join(dir, "started"))).toBe(false);
  });

  it("prints the policy's warnings and still starts", async () => {
    const dir = tempDir();
    const policy = writePolicy(dir, 'version: "2.0"\ntools:\n  allow: ["echo"]\nsurprise: 1\n');
    const w = start(["--policy", policy], [NODE, LIFECYCLE, dir, "normal"]);
    await waitFor(() => existsSync(join(dir, "pid")));
    expect(w.stderr).toMatch(/: warning W_/);
  });
});

describe("exit status", () => {
  it("is the server's exit code", async () => {
    const dir = tempDir();
    expect((await start([], [NODE, LIFECYCLE, dir, "exit", "7"]).exited).code).toBe(7);
  });

  it("is 128 + the signal number when the server dies by a signal", async () => {
    const dir = tempDir();
    expect((await start([], [NODE, LIFECYCLE, dir, "die", "SIGKILL"]).exited).code).toBe(137);
  });

  it("is 127 when the server command does not exist", async () => {
    const w = start([], ["/nonexistent/toolgate-e2e-server"]);
    expect((await w.exited).code).toBe(127);
    expect(w.stderr).toContain("cannot start the server");
  });
});

describe("signals and shutdown", () => {
  it("forwards SIGTERM to the server and exits with what the server exits with", async () => {
    const dir = tempDir();
    const w = start([], [NODE, LIFECYCLE, dir, "signals"]);
    await waitFor(() => existsSync(join(dir, "pid")));
    w.proc.kill("SIGTERM");
    expect((await w.exited).code).toBe(42);
    expect(existsSync(join(dir, "got-SIGTERM"))).toBe(true);
  });

  it("the client going away closes the server's stdin; the server exits and so does the wrapper", async () => {
    const dir = tempDir();
    const w = start([], [NODE, LIFECYCLE, dir, "normal"]);
    await waitFor(() => existsSync(join(dir, "pid")));
    const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
    w.proc.stdin.end();
    expect((await w.exited).code).toBe(0);
    // The wrapper has waited for its server, but an exited child is reaped by init a moment after its
    // parent goes: ask again until it is gone rather than at one instant.
    await waitFor(() => !alive(pid));
  });

  it("a server that ignores stdin closing and SIGTERM is killed", async () => {
    const dir = tempDir();
    const w = start([], [NODE, LIFECYCLE, dir, "stubborn"]);
    await waitFor(() => existsSync(join(dir, "pid")));
    const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
    w.proc.stdin.end();
    expect((await w.exited).code).toBe(137);
    await waitFor(() => !alive(pid));
  });

  it("an SDK client closing ends a real server and the wrapper", async () => {
    const session = await connect(wrapCommand([], [NODE, EVERYTHING_SERVER]));
    const wrapperPid = session.pid()!;
    const serverPids = childPids(wrapperPid);
    expect(serverPids).toHaveLength(1);
    await session.close();
    await waitFor(() => !alive(wrapperPid) && !alive(serverPids[0]!));
  });
});

describe("audit failures, dry run, verbose", () => {
  it("denies calls with E_AUDIT_WRITE when the audit log cannot be written", async () => {
    const w = start(["--audit-log", "/dev/full"], [NODE, EVERYTHING_SERVER]);
    await w.initialize();
    w.sendJson({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "x" } },
    });
    const answer = await w.response(1);
    expect(answer.result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringMatching(/E_AUDIT_WRITE/) }],
    });
    w.sendJson({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(await w.response(2)).toMatchObject({
      error: { message: expect.stringContaining("E_AUDIT_WRITE") },
    });
    expect(w.stderr).toContain("E_AUDIT_WRITE");
  });

  it("--dry-run shows and forwards everything, and records what enforcement would have done", async () => {
    const dir = tempDir();
    const ws = tempDir();
    const audit = join(dir, "audit.jsonl");
    const policy = writePolicy(
      dir,
      'version: "2.0"\ntools:\n  deny: ["write_file"]\n  allow: ["read_text_file", "write_file"]\n',
    );
    const session = await connect(
      wrapCommand(["--policy", policy, "--audit-log", audit, "--dry-run"], [NODE, FILESYSTEM_SERVER, ws]),
    );
    try {
      expect((await session.client.listTools()).tools).toHaveLength(14);
      await session.client.callTool({ name: "write_file", arguments: { path: "dry.txt", content: "x" } });
      expect(existsSync(join(ws, "dry.txt"))).toBe(true);
    } finally {
      await session.close();
    }
    const events = readAudit(audit);
    expect(events.find((e) => e.event === "tools/list")).toMatchObject({
      decision: "would-filter",
      shown: 14,
      hidden: 13,
    });
    expect(events.find((e) => e.tool === "write_file")).toMatchObject({
      decision: "would-hide",
      code: "E_TOOL_DENIED",
    });
  });

  it("--verbose prints one line per decision", async () => {
    const dir = tempDir();
    const policy = writePolicy(dir, 'version: "2.0"\ntools:\n  deny: ["get-env"]\n');
    const w = start(["--policy", policy, "--verbose"], [NODE, EVERYTHING_SERVER]);
    await w.initialize();
    w.sendJson({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get-env", arguments: {} } });
    w.sendJson({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "v" } },
    });
    await w.response(2);
    await w.until(() => w.stderr.includes("tools/call echo"));
    expect(w.stderr).toMatch(/toolgate: tools\/call get-env: hidden E_TOOL_DENIED/);
    expect(w.stderr).toMatch(/toolgate: tools\/call echo: allow/);
  });
});
