// The dashboard's audit page in a real browser, over logs written for real: `toolgate serve --audit-log` in
// front of server-everything, then a copy with one line edited. The chain status agrees with `toolgate audit
// verify`, the tampered log is flagged BROKEN at the edited line, the search finds events by tool, code,
// client and time, newest first, with arguments only as digests. The screenshot in docs/dashboard.md is
// taken here.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import {
  launchBrowser,
  screenshot,
  signIn,
  startDashboard,
  type RunningDashboard,
} from "./dashboardHelpers.js";
import { CLI, EVERYTHING_SERVER, NODE, ROOT, tempDir } from "./helpers.js";
import { serveStdio } from "./serveHelpers.js";

const SECRET_ARGUMENT = "secret-argument-4711";

let dashboard: RunningDashboard;
let browser: Browser;
let page: Page;
let good: string;
let tampered: string;
let editedLine: number;
let events: number;

function verifyJson(file: string): Record<string, unknown> {
  const run = spawnSync(NODE, [CLI, "audit", "verify", "--format", "json", file], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  const work = tempDir("tg-dash-audit-");
  good = join(work, "audit.jsonl");
  const dir = configDir({
    "mcp.json": mcpJson({ everything: { command: NODE, args: [EVERYTHING_SERVER] } }),
    "config.yaml": "enabled_mcp_servers: all\npolicy: policy.yaml\n",
    "policy.yaml":
      'version: "2.0"\ntools:\n  deny: ["get-env"]\nenforcement:\n  unconstrained_tools: allow\n',
  });
  const served = await serveStdio(dir, ["--audit-log", good]);
  try {
    await served.client.listTools();
    for (const message of [SECRET_ARGUMENT, "two", "three"]) {
      await served.client.callTool({ name: "everything__echo", arguments: { message } });
    }
    await served.client.callTool({ name: "everything__get-env", arguments: {} });
    await served.client.callTool({ name: "everything__echo", arguments: { message: "last" } });
  } finally {
    await served.close();
  }
  // The copy: the refused call's line rewritten to read as allowed, as someone covering tracks would.
  const lines = readFileSync(good, "utf8").split("\n").slice(0, -1);
  events = lines.length;
  const target = lines.findIndex((l) => l.includes('"decision":"hidden"'));
  expect(target).toBeGreaterThan(0);
  expect(target).toBeLessThan(lines.length - 1);
  lines[target] = lines[target]!.replace('"decision":"hidden"', '"decision":"allow"');
  editedLine = target + 1;
  tampered = join(work, "tampered.jsonl");
  writeFileSync(tampered, lines.map((l) => l + "\n").join(""));

  dashboard = await startDashboard(["--config-dir", dir, "--audit-log", good, "--audit-log", tampered]);
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signIn(page, dashboard);
  await Promise.all([page.waitForURL(/\/ui\/audit$/), page.getByRole("link", { name: "Audit" }).click()]);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
});

const rows = () => page.locator("table.events tbody tr");

async function search(fields: Record<string, string>): Promise<void> {
  for (const label of ["Tool contains", "Code", "Client contains", "From (UTC)", "To (UTC)"]) {
    await page.getByLabel(label).fill(fields[label] ?? "");
  }
  await page.getByLabel("Log").selectOption(fields["Log"] ?? "");
  await Promise.all([
    page.waitForLoadState("load"),
    page.getByRole("button", { name: "Search events" }).click(),
  ]);
}

describe("chain status", () => {
  it("the good log: OK with the count and head `audit verify` reports", async () => {
    const report = verifyJson(good);
    expect(report).toMatchObject({ ok: true, events });
    const row = page.locator('table.logs tr[data-log="0"]');
    expect(await row.locator(".status-ok").textContent()).toBe("OK");
    const detail = await row.locator("td").nth(3).textContent();
    expect(detail).toContain(`${events} events, every link holds (seq 1..${events})`);
    expect(detail).toContain(String(report["head"]));
  });

  it("the tampered log: BROKEN at the edited line, as `audit verify` says", async () => {
    const report = verifyJson(tampered) as { ok: boolean; break: { line: number; message: string } };
    expect(report.ok).toBe(false);
    expect(report.break.line).toBe(editedLine);
    const row = page.locator('table.logs tr[data-log="1"]');
    expect(await row.locator(".status-broken").textContent()).toBe(`BROKEN at line ${editedLine} (edited)`);
    expect(await row.textContent()).toContain(report.break.message);
  });
});

describe("search", () => {
  it("all events, newest first, arguments only as digests", async () => {
    await search({});
    expect(await rows().count()).toBe(2 * events);
    const times = await page.locator("table.events tbody tr td:nth-child(2)").allTextContents();
    expect([...times].sort().reverse()).toEqual(times);
    const digests = await page.locator("table.events tbody tr td:nth-child(11)").allTextContents();
    expect(digests.filter((d) => /^[0-9a-f]{64}$/.test(d)).length).toBeGreaterThanOrEqual(8);
    expect(await page.content()).not.toContain(SECRET_ARGUMENT);
    await screenshot(page, "dashboard-audit.png", 1100);
  });

  it("a digest shows short, whole in its title and in a click's selection; the short columns do not wrap", async () => {
    await search({});
    const digest = page.locator("table.events tbody tr td:nth-child(11) .digest code").first();
    const title = (await digest.getAttribute("title")) ?? "";
    expect(title).toMatch(/^[0-9a-f]{64}$/);
    expect(await digest.textContent()).toBe(title);
    // What shows is the first 12 of the 64 digits, and the cell is not much wider.
    const widths = await digest.evaluate((el) => {
      const e = el as unknown as {
        clientWidth: number;
        scrollWidth: number;
        parentElement: { clientWidth: number };
      };
      return { shown: e.clientWidth, whole: e.scrollWidth, cell: e.parentElement.clientWidth };
    });
    expect(Math.abs(widths.shown - (widths.whole * 12) / 64)).toBeLessThan(2);
    expect(widths.cell).toBeLessThan(widths.whole / 2);
    await digest.click();
    const selected = await page.evaluate(() =>
      String((globalThis as unknown as { getSelection: () => unknown }).getSelection()),
    );
    expect(selected).toBe(title);
    // Log:line, time, event, decision and code each on one line: their text is one line high.
    const heights = await page
      .locator("table.events tbody tr", { hasText: "E_TOOL_DENIED" })
      .first()
      .evaluate((row) => {
        type Box = { height: number };
        const g = globalThis as unknown as {
          document: {
            createRange: () => { selectNodeContents: (n: unknown) => void; getBoundingClientRect: () => Box };
          };
          getComputedStyle: (e: unknown) => { lineHeight: string };
        };
        const cells = (row as unknown as { cells: ArrayLike<unknown> }).cells;
        return [0, 1, 2, 6, 7].map((i) => {
          const range = g.document.createRange();
          range.selectNodeContents(cells[i]);
          return range.getBoundingClientRect().height / parseFloat(g.getComputedStyle(cells[i]).lineHeight);
        });
      });
    expect(
      heights.every((h) => h > 0 && h < 1.5),
      String(heights),
    ).toBe(true);
  });

  it("by tool: the refused call in both logs; the edited copy's line is flagged as past the break", async () => {
    await search({ "Tool contains": "get-env" });
    // The call, and the list answer that hid the tool, in each log.
    expect(await rows().locator("td:nth-child(3)").allTextContents()).toEqual([
      "tools/call",
      "tools/call",
      "tools/list",
      "tools/list",
    ]);
    const calls = page.locator("table.events tbody tr", { hasText: "tools/call" });
    expect(await calls.locator("td:nth-child(8)").allTextContents()).toEqual([
      "E_TOOL_DENIED",
      "E_TOOL_DENIED",
    ]);
    const edited = page.locator(`table.events tr[data-line="${editedLine}"].untrusted`);
    expect(await edited.count()).toBe(1);
    expect(await edited.locator("td:nth-child(7)").textContent()).toBe("allow");
    expect(await edited.locator("td").first().textContent()).toBe(`2:${editedLine} ⚠`);
    expect(await page.locator(`table.events tr[data-line="${editedLine}"]:not(.untrusted)`).count()).toBe(1);
  });

  it("by code and log; by client; by time", async () => {
    await search({ Code: "e_tool_denied", Log: "0" });
    expect(await rows().locator("td:first-child").allTextContents()).toEqual([`1:${editedLine}`, "1:1"]);
    await search({ "Client contains": "stdio", "Tool contains": "echo" });
    expect(await rows().count()).toBe(8);
    expect(new Set(await rows().locator("td:nth-child(6)").allTextContents())).toEqual(new Set(["stdio"]));
    await search({ "Client contains": "nobody" });
    expect(await rows().count()).toBe(0);
    await search({ "From (UTC)": "2999-01-01" });
    expect(await rows().count()).toBe(0);
    await search({ "From (UTC)": "2000-01-01", "To (UTC)": "2999-01-01" });
    expect(await rows().count()).toBe(2 * events);
  });

  it("a time it cannot read is said so, and nothing is searched", async () => {
    await search({ "From (UTC)": "last tuesday" });
    expect(await page.locator(".banner.error").textContent()).toContain("'last tuesday' is not a time");
    expect(await page.locator("table.events").count()).toBe(0);
  });
});
