// Replay of serve's own traffic: `serve --http --audit-log --audit-args --dashboard` in front of the official
// filesystem server, calls with arguments from an SDK client over HTTP; then `toolgate replay` over serve's
// log under a candidate (checked against a second serve running the candidate live on the same calls), and
// the dashboard's what-if view in Debian's chromium showing the same newly denied calls for a candidate file
// of the configuration directory. Only the operator's sign-in opens the view; a client's token does not.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { DASHBOARD_TOKEN, launchBrowser, screenshot, signIn } from "./dashboardHelpers.js";
import { FILESYSTEM_SERVER, NODE, outcome, readAudit, tempDir } from "./helpers.js";
import { httpClient, rawHttp, serveHttp, type HttpServe } from "./serveHelpers.js";

const CI = "e2e-ci-token-0123456789abcdef";

const CURRENT = `version: "2.0"
tools:
  allow: [read_text_file, list_directory, write_file]
schemas:
  read_text_file:
    type: object
    properties: { path: { type: string, minLength: 1 } }
    required: [path]
`;
// Reads of .txt files only, and write_file removed.
const TIGHTER = `version: "2.0"
tools:
  allow: [read_text_file, list_directory]
schemas:
  read_text_file:
    type: object
    properties: { path: { type: string, pattern: "\\\\.txt$" } }
    required: [path]
`;

const fsRoot = tempDir("tg-replay-serve-root-");
mkdirSync(join(fsRoot, "docs"));
writeFileSync(join(fsRoot, "notes.txt"), "hello\n");
writeFileSync(join(fsRoot, "docs", "readme.md"), "# readme\n");

/** The calls made through serve, as its client names the tools. */
const CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: "fs__read_text_file", arguments: { path: join(fsRoot, "notes.txt") } },
  { name: "fs__read_text_file", arguments: { path: join(fsRoot, "docs", "readme.md") } },
  { name: "fs__list_directory", arguments: { path: fsRoot } },
  { name: "fs__write_file", arguments: { path: join(fsRoot, "out.txt"), content: "x" } },
  { name: "fs__read_text_file", arguments: { path: join(fsRoot, "notes.txt"), head: 1 } },
];

function world(policy: string): string {
  return configDir({
    "mcp.json": mcpJson({ fs: { command: NODE, args: [FILESYSTEM_SERVER, fsRoot] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "policy.yaml": policy,
    "tighter.yaml": TIGHTER,
    "tokens.yaml": [
      `- name: ci\n  token: ${CI}`,
      `- name: alice\n  token: ${DASHBOARD_TOKEN}\n  use: [dashboard]`,
    ].join("\n"),
  });
}

/** serve over `dir` with its policy.yaml, auditing to `log`, and CALLS made by the ci client. */
async function servedCalls(dir: string, log: string, extra: string[] = []): Promise<HttpServe> {
  const served = await serveHttp(dir, [
    "--policy",
    join(dir, "policy.yaml"),
    "--audit-log",
    log,
    "--tokens",
    join(dir, "tokens.yaml"),
    ...extra,
  ]);
  const { client } = await httpClient(served.url, CI);
  try {
    await client.listTools();
    for (const call of CALLS) await outcome(client.callTool(call));
  } finally {
    await client.close();
  }
  return served;
}

/** Per recorded call: the tool, whether it was refused, and its code. */
function verdicts(log: string): { tool: string; refused: boolean; code: unknown }[] {
  return readAudit(log)
    .filter((e) => e.event === "tools/call")
    .map((e) => ({ tool: e.tool as string, refused: e.decision !== "allow", code: e.code }));
}

const config = world(CURRENT);
const recorded = join(tempDir("tg-replay-serve-"), "serve-audit.jsonl");
let served: HttpServe;

beforeAll(async () => {
  served = await servedCalls(config, recorded, ["--audit-args", "--dashboard"]);
}, 60_000);

afterAll(async () => {
  await served?.stop();
});

describe("toolgate replay over serve's --audit-args log", () => {
  it("serve records each call's arguments, with its server and principal", () => {
    const calls = readAudit(recorded).filter((e) => e.event === "tools/call");
    expect(calls.map((e) => [e.server, e.tool, e.principal])).toEqual(
      CALLS.map((c) => ["fs", c.name.slice("fs__".length), "ci"]),
    );
    expect(calls.map((e) => e.args)).toEqual(CALLS.map((c) => c.arguments));
  });

  it("reports exactly the calls a live serve of the candidate refuses and serve allowed", async () => {
    // The candidate live: a second serve with tighter.yaml as its policy, the same calls.
    const live = join(tempDir("tg-replay-serve-live-"), "live.jsonl");
    const liveDir = world(TIGHTER);
    const second = await servedCalls(liveDir, live);
    await second.stop();
    const before = verdicts(recorded);
    const after = verdicts(live);
    expect(after.map((v) => v.tool)).toEqual(before.map((v) => v.tool));
    const changed = before.flatMap((b, i) =>
      b.refused === after[i]!.refused ? [] : [{ ...after[i]!, was: b.refused }],
    );
    expect(changed).toEqual([
      { tool: "read_text_file", refused: true, code: "E_ARG_SCHEMA", was: false },
      { tool: "write_file", refused: true, code: "E_TOOL_NOT_ALLOWED", was: false },
    ]);

    const run = await runCli([
      "replay",
      "--config-dir",
      config,
      "--policy",
      join(config, "tighter.yaml"),
      "--format",
      "json",
      recorded,
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      newly_denied: { server: string; tool: string; principal: string; count: number; code: string }[];
      newly_allowed: unknown[];
      newly_hidden: unknown[];
      unchanged: number;
      name_only: number;
    };
    expect(report.newly_denied.map((d) => [d.server, d.tool, d.principal, d.count, d.code])).toEqual(
      changed.map((c) => ["fs", c.tool, "ci", 1, c.code]),
    );
    expect(report.newly_allowed).toEqual([]);
    expect(report.newly_hidden).toEqual([{ server: "fs", tool: "write_file", principal: "ci" }]);
    expect(report.unchanged).toBe(CALLS.length - changed.length);
    expect(report.name_only).toBe(0);
  }, 60_000);
});

describe("the dashboard's what-if view over serve's log", () => {
  let browser: Browser;
  let page: Page;
  const origin = (): string => new URL(served.url).origin;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("a client's token neither signs in nor opens the view", async () => {
    const other = await browser.newPage();
    await other.goto(`${origin()}/ui/whatif?candidate=tighter.yaml`);
    // No session: the sign-in page, nothing of the directory.
    await other.getByLabel("Token").waitFor();
    expect(await other.content()).not.toContain("tighter.yaml");
    await other.getByLabel("Token").fill(CI);
    await other.getByRole("button", { name: "Sign in" }).click();
    await other.getByText("That is an MCP client's token").waitFor({ timeout: 10_000 });
    expect(other.url()).toContain("/ui/login");
    await other.close();
    // The client's token as a bearer on the operator's door: refused the same way.
    const bearer = await rawHttp(`${origin()}/ui/whatif?candidate=tighter.yaml`, "GET", {
      host: new URL(served.url).host,
      authorization: `Bearer ${CI}`,
    });
    expect(bearer.status).toBe(401);
    expect(bearer.body).not.toContain("newly denied");
  });

  it("lists the candidate files, and picking one shows its newly denied calls per tool", async () => {
    await signIn(page, {
      url: `${origin()}/ui/`,
      origin: origin(),
      stderr: served.stderr,
      stop: served.stop,
    });
    await page.goto(`${origin()}/ui/whatif`);
    const candidates = page.locator("#candidates li");
    expect(await candidates.allTextContents()).toEqual(["tighter.yaml"]);
    expect(await page.locator("details.skipped").textContent()).toContain("policy.yaml: the policy in force");
    await page.getByRole("link", { name: "tighter.yaml" }).click();
    await page.locator("#whatif-result").waitFor({ timeout: 30_000 });
    expect(await page.locator("#count-newly-denied").textContent()).toBe("2");
    const write = page.locator('#newly-denied tr[data-tool="write_file"]');
    expect(await write.locator("td.count").first().textContent()).toBe("1");
    expect(await write.locator("td").nth(4).textContent()).toBe("E_TOOL_NOT_ALLOWED");
    const read = page.locator('#newly-denied tr[data-tool="read_text_file"]');
    expect(await read.locator("td.count").first().textContent()).toBe("1");
    expect(await read.locator("td").nth(4).textContent()).toBe("E_ARG_SCHEMA");
    expect(await page.locator('#newly-hidden tr[data-tool="write_file"]').count()).toBe(1);
    expect(await page.locator("#count-unchanged").textContent()).toBe(String(CALLS.length - 2));
    await screenshot(page, "dashboard-whatif.png", 760);
  }, 60_000);

  it("names a candidate only from the list: a path is refused with E_DASHBOARD_CANDIDATE", async () => {
    for (const name of ["../policy.yaml", join(config, "tighter.yaml"), "policy.yaml", "tokens.yaml"]) {
      const answer = await page.goto(`${origin()}/ui/whatif?candidate=${encodeURIComponent(name)}`);
      expect(answer?.status(), name).toBe(400);
      expect(await page.locator("#whatif-refusal").textContent()).toContain("E_DASHBOARD_CANDIDATE");
      expect(await page.locator("#whatif-result").count()).toBe(0);
    }
    expect(served.stderr()).toContain("E_DASHBOARD_CANDIDATE");
  });
});
