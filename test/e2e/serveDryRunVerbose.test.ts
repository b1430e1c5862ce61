// serve has wrap's operator switches, because both run the one session core: --dry-run decides and records
// everything but forwards it all, --verbose prints one line per decision, --max-frame-bytes bounds stdio
// lines. Against the real filesystem and everything servers, with the official SDK client.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, NODE, readAudit, tempDir, writePolicy } from "./helpers.js";
import { serveStdio, serveWorld, textOf } from "./serveHelpers.js";
import { spawn } from "node:child_process";

const DENY_WRITE =
  'version: "2.0"\ntools:\n  deny: ["write_file", "get-env"]\nenforcement:\n  unconstrained_tools: allow\n';

describe("serve --dry-run", () => {
  it("shows and forwards everything, and records what enforcement would have done", async () => {
    const world = serveWorld();
    const audit = join(tempDir(), "audit.jsonl");
    const policy = writePolicy(tempDir(), DENY_WRITE);
    const served = await serveStdio(world.dir, ["--policy", policy, "--audit-log", audit, "--dry-run"]);
    try {
      const names = (await served.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("fs__write_file");
      expect(names).toContain("everything__get-env");
      await served.client.callTool({
        name: "fs__write_file",
        arguments: { path: join(world.fsRoot, "dry.txt"), content: "x" },
      });
      expect(existsSync(join(world.fsRoot, "dry.txt"))).toBe(true);
      expect(served.stderr()).toContain("dry run: every call and list is decided and recorded");
    } finally {
      await served.close();
    }
    const events = readAudit(audit);
    // mcp.json's allowedTools leaves fs 4 of its 14 tools, and the policy denies one of those: all shown.
    expect(events.find((e) => e.event === "tools/list" && e.server === "fs")).toMatchObject({
      decision: "would-filter",
      shown: 14,
      hidden: 11,
    });
    expect(events.find((e) => e.event === "tools/call" && e.tool === "write_file")).toMatchObject({
      server: "fs",
      decision: "would-hide",
      code: "E_TOOL_DENIED",
    });
  });
});

describe("serve --verbose", () => {
  it("prints one line per decision: lists per server, hidden and allowed calls", async () => {
    const world = serveWorld();
    const policy = writePolicy(tempDir(), DENY_WRITE);
    const served = await serveStdio(world.dir, ["--policy", policy, "--verbose"]);
    try {
      await served.client.listTools();
      await served.client.callTool({ name: "everything__get-env", arguments: {} });
      const echo = await served.client.callTool({ name: "everything__echo", arguments: { message: "v" } });
      expect(textOf(echo)).toBe("Echo: v");
      const stderr = served.stderr();
      expect(stderr).toMatch(/toolgate: tools\/list \[fs\]: 3 shown, 11 hidden \(.*write_file E_TOOL_DENIED/);
      expect(stderr).toMatch(/toolgate: tools\/call everything__get-env: hidden E_TOOL_DENIED/);
      expect(stderr).toMatch(/toolgate: tools\/call everything__echo: allow/);
    } finally {
      await served.close();
    }
  });
});

describe("serve --max-frame-bytes", () => {
  it("refuses a client line longer than the bound with an error and goes on serving", async () => {
    const world = serveWorld();
    const proc = spawn(NODE, [CLI, "serve", "--config-dir", world.dir, "--max-frame-bytes", "200"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    proc.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const until = async (probe: () => boolean): Promise<void> => {
      for (let i = 0; i < 200 && !probe(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(probe()).toBe(true);
    };
    try {
      const long = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "ping",
        params: { pad: "x".repeat(300) },
      });
      proc.stdin.write(long + "\n");
      await until(() => out.includes("--max-frame-bytes"));
      const refusal = JSON.parse(out.trim().split("\n")[0]!) as { id: unknown; error: { code: number } };
      expect(refusal).toMatchObject({ id: null, error: { code: -32600 } });
      expect(err).toContain("rejected a client frame (oversize)");
      proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n");
      await until(() => out.includes('"id":2'));
    } finally {
      proc.kill("SIGTERM");
    }
  });
});
