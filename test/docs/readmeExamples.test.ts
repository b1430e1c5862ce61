// The README's examples run as written: the minimal policy loads with no warning, the CI script passes
// (with `toolgate` on PATH as the installed command is), the configuration directory lists as shown, and
// the Streamable HTTP client entries (Claude Code's command line, the JSON form) reach the served gateway
// with their Authorization header, where a client without it is refused.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { CLI, FILESYSTEM_SERVER, NODE, ROOT, tempDir } from "../e2e/helpers.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** The first fenced block of `lang` after `heading`. */
function block(heading: string, lang: string, nth = 0): string {
  const from = readme.indexOf(heading);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const blocks = [...readme.slice(from).matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))];
  return blocks[nth]![1]!;
}

/** A directory with `toolgate` on PATH, as `npm install -g` leaves it. */
function withToolgate(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir("tg-readme-");
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "toolgate"), `#!/bin/sh\nexec "${NODE}" "${CLI}" "$@"\n`);
  chmodSync(join(dir, "bin", "toolgate"), 0o755);
  return {
    dir,
    env: {
      PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
      HOME: dir,
      TOOLGATE_CONFIG_DIR: "",
      // A serve started here waits for its servers before a first list, as under the rest of the run.
      ...(process.env.TOOLGATE_LIST_WAIT === undefined
        ? {}
        : { TOOLGATE_LIST_WAIT: process.env.TOOLGATE_LIST_WAIT }),
    },
  };
}

describe("the README's examples", () => {
  it("the minimal policy loads as written, with no warning", () => {
    const { dir, env } = withToolgate();
    writeFileSync(join(dir, "policy.yaml"), block("## A minimal policy", "yaml"));
    const run = spawnSync("toolgate", ["policy", "validate", "--input", "policy.yaml"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toBe("policy.yaml: valid (version 2.0, 0 warnings)\n");
  });

  it("the CI script of the quick start passes against the minimal policy", () => {
    const { dir, env } = withToolgate();
    writeFileSync(join(dir, "policy.yaml"), block("## A minimal policy", "yaml"));
    const script = block("### 3. Check a policy in CI", "sh");
    const run = spawnSync("sh", ["-c", script], { cwd: dir, env, encoding: "utf8" });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('"code":"E_SCOPE_VIOLATION"');
  });

  it("the configuration directory of the quick start lists as shown", () => {
    const { dir, env } = withToolgate();
    const config = join(dir, "config");
    mkdirSync(config);
    writeFileSync(join(config, "mcp.json"), block("### 2. Serve a configuration directory", "json"));
    writeFileSync(join(config, "config.yaml"), block("### 2. Serve a configuration directory", "yaml"));
    const shown = block("### 2. Serve a configuration directory", "sh").split("\n")[0]!;
    const expected = shown.split("#")[1]!.trim();
    const run = spawnSync("toolgate", ["list", "--config-dir", config], { cwd: dir, env, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(expected);
  });

  it("the Streamable HTTP client entries reach the gateway served as shown, with the token in their header", async () => {
    const heading = "Over **Streamable HTTP**";
    const [exported, serveLine, shownUrl] = block(heading, "sh").trim().split("\n");
    expect(exported).toMatch(/^export TOOLGATE_TOKEN="\$\(openssl rand -hex 24\)"/);
    const url = /on (http:\S+)$/.exec(shownUrl!)![1]!;
    const claudeLine = block(heading, "sh", 1).trim();
    const json = JSON.parse(block(heading, "json")) as {
      mcpServers: { toolgate: { type: string; url: string; headers: Record<string, string> } };
    };
    const entry = json.mcpServers.toolgate;
    expect([entry.type, entry.url]).toEqual(["http", url]);

    // The words Claude Code would get, as the shell splits and expands the README's line.
    const token = spawnSync("openssl", ["rand", "-hex", "24"], { encoding: "utf8" }).stdout.trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    const words = spawnSync("sh", ["-c", `claude() { printf '%s\\n' "$@"; }\n${claudeLine}`], {
      env: { PATH: process.env.PATH ?? "", TOOLGATE_TOKEN: token },
      encoding: "utf8",
    }).stdout.split("\n");
    expect(words.slice(0, 8)).toEqual([
      "mcp",
      "add",
      "--transport",
      "http",
      "toolgate",
      url,
      "--header",
      `Authorization: Bearer ${token}`,
    ]);
    expect(entry.headers).toEqual({ Authorization: "Bearer <token>" });

    // The serve line as written, on a free port, with the minimal policy and a filesystem server.
    const { dir, env } = withToolgate();
    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(dir, "policy.yaml"), block("## A minimal policy", "yaml"));
    const config = join(dir, ".config", "toolgate");
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, "mcp.json"),
      JSON.stringify({ mcpServers: { fs: { command: NODE, args: [FILESYSTEM_SERVER, project] } } }),
    );
    writeFileSync(join(config, "config.yaml"), block("### 2. Serve a configuration directory", "yaml"));
    const line = serveLine!.replace("--http 8931", "--http 0").replace("/home/me/policy.yaml", "policy.yaml");
    expect(line).toBe("toolgate serve --http 0 --policy policy.yaml");
    const served = spawn("sh", ["-c", `exec ${line}`], {
      cwd: dir,
      env: { ...env, TOOLGATE_TOKEN: token },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<void>((resolve) => served.on("exit", () => resolve()));
    try {
      const listening = await new Promise<string>((resolve, reject) => {
        let stderr = "";
        const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 30_000);
        served.stderr.on("data", (d: Buffer) => {
          stderr += d.toString("utf8");
          const m = /serving MCP \(direct mode\) on (http:\/\/\S+)/.exec(stderr);
          if (m !== null) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        served.on("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`serve exited with ${code}:\n${stderr}`));
        });
      });
      expect(listening.replace(/:\d+\//, ":8931/")).toBe(url);
      const connectWith = async (headers: Record<string, string>) => {
        const client = new Client({ name: "readme-entry", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(listening), { requestInit: { headers } }),
        );
        return client;
      };
      const headers = { Authorization: entry.headers.Authorization!.replace("<token>", token) };
      const client = await connectWith(headers);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain("fs__read_text_file");
      } finally {
        await client.close();
      }
      await expect(connectWith({})).rejects.toThrow(/401|Unauthorized/);
    } finally {
      served.kill("SIGTERM");
      const kill = setTimeout(() => served.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(kill);
    }
  }, 60_000);
});
