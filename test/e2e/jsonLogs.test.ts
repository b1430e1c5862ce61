// `--log-format json` on wrap and serve: every line toolgate writes on stderr is one JSON object with
// time, level, code and message (and server, tool, principal where there is one), start-up errors and
// usage errors included. Real servers (server-everything), a server that fails to start, the SDK clients.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ALL_CODES } from "../../src/engine/model/codes.js";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { CLI, connect, EVERYTHING_SERVER, NODE, ROOT, tempDir, writePolicy } from "./helpers.js";
import { httpClient, TOKEN, until } from "./serveHelpers.js";

type Entry = Record<string, unknown>;

/** Every non-empty line parsed as JSON, with the keys every line must have. */
function jsonLines(stderr: string): Entry[] {
  const lines = stderr.split("\n").filter((l) => l !== "");
  return lines.map((line) => {
    const entry = JSON.parse(line) as Entry;
    expect(typeof entry.time === "string" && !Number.isNaN(Date.parse(entry.time))).toBe(true);
    expect(["error", "warning", "info"]).toContain(entry.level);
    expect(ALL_CODES as readonly unknown[]).toContain(entry.code);
    expect(typeof entry.message).toBe("string");
    return entry;
  });
}

const BAD_POLICY = 'version: "2.0"\nname: bad\ntools:\n  allow: 5\n';
const DENY_ECHO = 'version: "2.0"\nname: deny-echo\ntools:\n  allow: ["*"]\n  deny: [echo]\n';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe("wrap --log-format json", () => {
  it("a bad policy file: its diagnostic and the refusal, each a JSON line with file, line and field", async () => {
    const policy = writePolicy(tempDir(), BAD_POLICY);
    const run = await runCli([
      "wrap",
      "--log-format",
      "json",
      "--policy",
      policy,
      "--",
      NODE,
      EVERYTHING_SERVER,
    ]);
    expect(run.code).toBe(2);
    const entries = jsonLines(run.stderr);
    expect(entries[0]).toMatchObject({
      level: "error",
      code: "E_POLICY_FIELD_TYPE",
      file: policy,
      line: 4,
      field: "tools.allow",
    });
    expect(entries.at(-1)).toMatchObject({ level: "error", code: "E_START_REFUSED" });
  });

  it("a bad flag, before the command runs: E_USAGE as JSON (also from $TOOLGATE_LOG_FORMAT)", async () => {
    const run = await runCli(["wrap", "--no-such-flag", "--", NODE, EVERYTHING_SERVER], {
      env: { TOOLGATE_LOG_FORMAT: "json" },
    });
    expect(run.code).toBe(2);
    const entries = jsonLines(run.stderr);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ level: "error", code: "E_USAGE" });
    expect(String(entries[0]!.message)).toContain("--no-such-flag");
  });

  it("a refused call under --verbose: the decision line names the tool and its code", async () => {
    const policy = writePolicy(tempDir(), DENY_ECHO);
    const wrapped = await connect({
      command: NODE,
      args: [
        CLI,
        "wrap",
        "--log-format",
        "json",
        "--verbose",
        "--policy",
        policy,
        "--",
        NODE,
        EVERYTHING_SERVER,
      ],
    });
    stops.push(() => void wrapped.close());
    const result = await wrapped.client.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(result.isError).toBe(true);
    await wrapped.close();
    // Every line is JSON, the server's own too: each of its stderr lines an I_SERVER_STDERR entry.
    const entries = jsonLines(wrapped.stderr());
    expect(entries).toContainEqual(
      expect.objectContaining({ level: "info", code: "E_TOOL_DENIED", tool: "echo" }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ code: "I_SERVER_STDERR", message: expect.stringMatching(/Starting/) }),
    );
  });
});

describe("serve --log-format json", () => {
  it("a failing upstream, a session and a refused call over HTTP: every stderr line is JSON", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        broken: {
          command: NODE,
          args: ["-e", "console.error('cannot start: no database'); process.exit(3)"],
        },
      }),
      "config.yaml": "enabled_mcp_servers: all\n",
      "policy.yaml": 'version: "2.0"\nname: p\ntools:\n  allow: ["*"]\n  deny: [everything__echo]\n',
    });
    const proc = spawn(
      NODE,
      [
        CLI,
        "serve",
        "--config-dir",
        dir,
        "--policy",
        `${dir}/policy.yaml`,
        "--http",
        "0",
        "--verbose",
        "--log-format",
        "json",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, TOOLGATE_TOKEN: TOKEN, TOOLGATE_CONFIG_DIR: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    stops.push(() => proc.kill("SIGKILL"));
    const url = await until(() => {
      const ready = jsonLines(stderr).find((e) => e.code === "I_SERVE_READY");
      return ready === undefined ? undefined : /on (http:\/\/\S+)$/.exec(String(ready.message))?.[1];
    }, 20_000);
    const { client } = await httpClient(url, TOKEN);
    const denied = await client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
    expect(denied.isError).toBe(true);
    await until(() => jsonLines(stderr).some((e) => e.code === "W_UPSTREAM_DOWN"), 20_000);
    await client.close();
    proc.kill("SIGTERM");
    await exited;

    const entries = jsonLines(stderr);
    expect(entries).toContainEqual(
      expect.objectContaining({ code: "E_TOOL_DENIED", tool: "everything__echo" }),
    );
    expect(entries).toContainEqual(expect.objectContaining({ code: "W_UPSTREAM_DOWN", server: "broken" }));
    expect(entries).toContainEqual(
      expect.objectContaining({ code: "I_SERVER_STDERR", server: "broken", level: "info" }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({ code: "I_SESSION", principal: expect.any(String) }),
    );
  });

  it("a bad policy file stops serve before it starts, in JSON", async () => {
    const dir = configDir({
      "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
      "config.yaml": "enabled_mcp_servers: all\n",
      "policy.yaml": BAD_POLICY,
    });
    const run = await runCli(
      ["serve", "--config-dir", dir, "--policy", `${dir}/policy.yaml`, "--http", "0", "--log-format", "json"],
      {
        env: { TOOLGATE_TOKEN: TOKEN },
      },
    );
    expect(run.code).toBe(2);
    const entries = jsonLines(run.stderr);
    expect(entries.map((e) => e.code)).toEqual(["E_POLICY_FIELD_TYPE", "E_START_REFUSED"]);
  });
});
