// The Python MCP SDK's client (mcp 2.3.0, its default mode: it negotiates revision 2026-07-28 whenever the
// server offers it) against wrap and serve, over stdio and HTTP: the same filtered list, allowed call,
// hidden tool, approval and server question as the TypeScript clients get. The client is
// fixtures/pyClient.py; the package is installed on first use when missing.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, FIXTURES, NODE, ROOT } from "./helpers.js";
import { serveHttp, TOKEN, type HttpServe } from "./serveHelpers.js";

const PYTHON = process.env.PYTHON ?? "python3";
const MCP_PYTHON = "mcp==2.3.0";
const MODERN_SERVER = [NODE, join(FIXTURES, "modernServer.mjs")];

const config = configDir({
  "mcp.json": mcpJson({ m: { command: MODERN_SERVER[0], args: MODERN_SERVER.slice(1) } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml":
    'version: "2.0"\ntools:\n  deny: ["write_note"]\n  approval_required: ["deploy"]\nenforcement: { unconstrained_tools: allow }\n',
});
const policy = join(config, "policy.yaml");

function python(args: string[], input: string): Array<Record<string, unknown>> {
  const run = spawnSync(PYTHON, [join(FIXTURES, "pyClient.py"), ...args], {
    input,
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`pyClient.py failed (${run.status}):\n${run.stderr}`);
  return run.stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(() => {
  const found = spawnSync(PYTHON, ["-c", "import mcp.client, mcp_types"], { encoding: "utf8" });
  if (found.status === 0) return;
  const pip = (extra: string[]) =>
    spawnSync(PYTHON, ["-m", "pip", "install", "--quiet", ...extra, MCP_PYTHON], {
      encoding: "utf8",
      timeout: 180_000,
    });
  // A system Python may be marked externally managed (PEP 668); the test installs for itself regardless.
  let install = pip([]);
  if (install.status !== 0) install = pip(["--break-system-packages"]);
  if (install.status !== 0) {
    throw new Error(
      `the Python MCP SDK is needed here: ${PYTHON} -m pip install ${MCP_PYTHON}\n${install.stderr}`,
    );
  }
}, 200_000);

let served: HttpServe | null = null;
afterAll(async () => {
  await served?.stop();
});

const steps = (prefix: string) =>
  ["echo", "write_note", "deploy", "confirm"]
    .map((t) =>
      JSON.stringify({
        name: `${prefix}${t}`,
        arguments:
          t === "echo"
            ? { message: "py" }
            : t === "deploy"
              ? { target: "py" }
              : t === "write_note"
                ? { path: "p", content: "c" }
                : {},
      }),
    )
    .join("\n");

const expected = (prefix: string) => [
  { protocol_version: "2026-07-28" },
  { tools: ["echo", "deploy", "confirm", "region_echo", "grow"].map((t) => `${prefix}${t}`) },
  { name: `${prefix}echo`, is_error: false, text: "Echo: py" },
  { name: `${prefix}write_note`, error: `Tool ${prefix}write_note not found` },
  { name: `${prefix}deploy`, is_error: false, text: "deployed py" },
  { name: `${prefix}confirm`, is_error: false, text: "confirmed yes" },
];

describe("the Python SDK client, in its default mode", () => {
  it("through wrap over stdio", () => {
    expect(
      python(["stdio", NODE, CLI, "wrap", "--policy", policy, "--", ...MODERN_SERVER], steps("")),
    ).toEqual(expected(""));
  });

  it("through serve over stdio", () => {
    expect(
      python(["stdio", NODE, CLI, "serve", "--config-dir", config, "--policy", policy], steps("m__")),
    ).toEqual(expected("m__"));
  });

  it("through serve over HTTP", async () => {
    served = await serveHttp(config, ["--token", TOKEN, "--policy", policy]);
    expect(python(["http", served.url, TOKEN], steps("m__"))).toEqual(expected("m__"));
  });
});
