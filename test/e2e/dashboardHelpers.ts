// Shared by the dashboard's browser tests: the built CLI's `toolgate dashboard` as a child process, Debian's
// chromium through playwright-core, signing in, a hostile stdio MCP server written here byte for byte.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { CLI, NODE, ROOT, tempDir } from "./helpers.js";

export const DASHBOARD_TOKEN = "e2e-dashboard-token-0123456789";
/** The system chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.TOOLGATE_E2E_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(ROOT, "docs/img");

export interface RunningDashboard {
  /** `http://127.0.0.1:<port>/ui/` */
  url: string;
  origin: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** `node dist/cli.js dashboard …args` on a free loopback port; resolves once it printed its address. */
export function startDashboard(args: string[]): Promise<RunningDashboard> {
  const child: ChildProcessWithoutNullStreams = spawn(
    NODE,
    [CLI, "dashboard", "--host", "127.0.0.1", "--port", "0", ...args],
    { cwd: ROOT, env: { ...process.env, TOOLGATE_TOKEN: DASHBOARD_TOKEN, TOOLGATE_CONFIG_DIR: "" } },
  );
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the dashboard did not start:\n${stderr}`)), 15_000);
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      const m = / on (http:\/\/127\.0\.0\.1:\d+\/ui\/)\n/.exec(stderr);
      if (m === null) return;
      clearTimeout(timer);
      const url = m[1]!;
      resolve({
        url,
        origin: new URL(url).origin,
        stderr: () => stderr,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.on("exit", (code) => reject(new Error(`the dashboard exited (${code}):\n${stderr}`)));
  });
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
  // We run as root in CI and here: chromium refuses its sandbox then.
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/** Signs in through the page's own form, as a person would. */
export async function signIn(
  page: Page,
  dashboard: RunningDashboard,
  token = DASHBOARD_TOKEN,
): Promise<void> {
  await page.goto(dashboard.url);
  await page.getByLabel("Token").fill(token);
  await Promise.all([page.waitForURL(dashboard.url), page.getByRole("button", { name: "Sign in" }).click()]);
}

export interface Timing {
  /** Navigation start to the last byte of the page. */
  responseEnd: number;
  /** Navigation start to the first contentful paint. */
  firstContentfulPaint: number;
  domContentLoaded: number;
}

/** The browser's own navigation and paint timing of the page now loaded. */
export async function navigationTiming(page: Page): Promise<Timing> {
  // FCP is reported asynchronously; wait for the entry rather than read it too early.
  await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0);
  return page.evaluate(() => {
    // Runs in the page; the project's types are Node's, which know no navigation entries.
    const entries = (performance.getEntriesByType as (type: string) => unknown[])("navigation");
    const nav = entries[0] as { responseEnd: number; domContentLoadedEventEnd: number };
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]!;
    return {
      responseEnd: nav.responseEnd,
      firstContentfulPaint: fcp.startTime,
      domContentLoaded: nav.domContentLoadedEventEnd,
    };
  });
}

/**
 * The top `height` pixels of the whole page (not just the viewport). The shots docs/dashboard.md shows are
 * written to docs/img/ when missing or with TOOLGATE_UPDATE_SCREENSHOTS=1 (as TOOLGATE_UPDATE_GOLDEN does
 * for goldens: every run would otherwise rewrite them, their times and paths being the run's); else to a
 * temp directory, so the shot is still taken.
 */
export async function screenshot(page: Page, name: string, height = 900): Promise<string> {
  const docs = join(SCREENSHOTS, name);
  const update = process.env.TOOLGATE_UPDATE_SCREENSHOTS === "1" || !existsSync(docs);
  const path = update ? docs : join(tempDir("tg-dash-shot-"), name);
  mkdirSync(dirname(path), { recursive: true });
  const width = page.viewportSize()?.width ?? 1280;
  await page.screenshot({ path, fullPage: true, clip: { x: 0, y: 0, width, height } });
  return path;
}

/**
 * A stdio MCP server that lists tools whose names are markup and terminal escapes (or, with TOOL_COUNT=N,
 * N plain tools `tool_00000`…), raw JSON-RPC so every byte of the names is the test's.
 */
const HOSTILE = `
const count = Number(process.env.TOOL_COUNT || "0");
const names = count > 0
  ? Array.from({ length: count }, (_, i) => "tool_" + String(i).padStart(5, "0"))
  : ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>', "red\\u001b[31malert\\u001b[0m",
     "rtl\\u202eexe.txt", "line\\nbreak", "plain_tool"];
const tools = names.map((name) => ({ name, description: "<b>" + name + "</b>", inputSchema: { type: "object" } }));
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() === "") continue;
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    if (m.method === "initialize") {
      send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
    } else if (m.method === "tools/list") send({ jsonrpc: "2.0", id: m.id, result: { tools } });
    else if (m.method === "ping") send({ jsonrpc: "2.0", id: m.id, result: {} });
    else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
});
`;

/** The hostile server's names as the page must show them, in the page's order (sorted by the raw name). */
export const HOSTILE_SHOWN = [
  '"><img src=x onerror=alert(2)>',
  "<script>alert(1)</script>",
  "line\\nbreak",
  "plain_tool",
  "red\\u001b[31malert\\u001b[0m",
  "rtl\\u202eexe.txt",
];

/** Writes the hostile server into `dir`; returns its path. */
export function writeHostileServer(dir: string): string {
  const path = join(dir, "hostile.cjs");
  writeFileSync(path, HOSTILE);
  return path;
}
