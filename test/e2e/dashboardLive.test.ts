// The live view's counts in Debian's chromium, against serve --http --dashboard and a real MCP server: the
// bars count the same events as the table, so calls made before the page was (re)loaded count; a
// tools/list is counted apart (with the tools it hid), never as a deny; the arguments' digest is shown short
// with the whole value in its title. The screenshot of the live view in docs/dashboard.md is taken here.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { DASHBOARD_TOKEN, launchBrowser, screenshot, signIn } from "./dashboardHelpers.js";
import { FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { httpClient, serveHttp, until, type HttpServe } from "./serveHelpers.js";

const CI = "e2e-ci-token-0123456789abcdef";
const auditLog = join(tempDir("tg-dash-live-"), "audit.jsonl");
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  // deploy is hidden; echo refuses a message longer than 10 characters (E_ARG_SCHEMA: a deny).
  "policy.yaml": [
    'version: "2.0"',
    "tools:",
    '  deny: ["deploy"]',
    "schemas:",
    "  echo: { type: object, properties: { message: { type: string, maxLength: 10 } } }",
    "enforcement: { unconstrained_tools: allow }",
    "",
  ].join("\n"),
  "tokens.yaml": [
    `- name: ci\n  token: ${CI}`,
    `- name: alice\n  token: ${DASHBOARD_TOKEN}\n  use: [dashboard]`,
  ].join("\n"),
});

let served: HttpServe;
let browser: Browser;
let page: Page;
let origin: string;

/** The bars' texts and widths as the page shows them now. */
async function bars(): Promise<Record<string, { text: string; width: string }>> {
  const out: Record<string, { text: string; width: string }> = {};
  for (const kind of ["allow", "deny", "hidden"]) {
    const bar = page.locator(`#counts .bar-${kind}`);
    out[kind] = {
      text: (await bar.textContent()) ?? "",
      width: await bar.evaluate((el) => (el as unknown as { style: { width: string } }).style.width),
    };
  }
  out["lists"] = { text: (await page.locator("#counts .lists").textContent()) ?? "", width: "" };
  return out;
}

beforeAll(async () => {
  served = await serveHttp(config, [
    "--dashboard",
    "--policy",
    join(config, "policy.yaml"),
    "--audit-log",
    auditLog,
    "--tokens",
    join(config, "tokens.yaml"),
  ]);
  origin = new URL(served.url).origin;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, { url: `${origin}/ui/`, origin, stderr: served.stderr, stop: served.stop });
  // Before the live view is ever opened: two lists (each hides deploy), two allowed calls, one refused by
  // the schema (deny), one to the hidden tool (hidden).
  const { client } = await httpClient(served.url, CI);
  await client.listTools();
  await client.listTools();
  await client.callTool({ name: "m__echo", arguments: { message: "one" } });
  await client.callTool({ name: "m__echo", arguments: { message: "two" } });
  const refused = await client.callTool({
    name: "m__echo",
    arguments: { message: "far too long a message" },
  });
  expect(refused.isError).toBe(true);
  await client.callTool({ name: "m__deploy", arguments: { target: "prod" } }).catch(() => null);
  await client.close();
  const kinds = readAudit(auditLog).map((e) => `${String(e["event"])} ${String(e["decision"])}`);
  expect(kinds).toEqual([
    "tools/list filtered",
    "tools/list filtered",
    "tools/call allow",
    "tools/call allow",
    "tools/call deny",
    "tools/call hidden",
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe("/ui/live's counts", () => {
  it("count the calls made before the page was loaded, and again after a reload", async () => {
    await page.goto(`${origin}/ui/live`);
    expect(await page.locator("#live tbody tr").count()).toBe(6);
    const expected = {
      allow: { text: "allow 2", width: "50%" },
      deny: { text: "deny 1", width: "25%" },
      hidden: { text: "hidden 1", width: "25%" },
      lists: { text: "tools/list 2 (2 tools hidden)", width: "" },
    };
    expect(await bars()).toEqual(expected);
    await page.reload();
    expect(await bars()).toEqual(expected);
  });

  it("a tools/list while the page is open adds to the lists, not to the denials; a call adds to its bar", async () => {
    await page.goto(`${origin}/ui/live`);
    const { client } = await httpClient(served.url, CI);
    await client.listTools();
    await until(() =>
      page
        .locator("#counts .lists")
        .textContent()
        .then((t) => t === "tools/list 3 (3 tools hidden)"),
    );
    expect((await bars())["deny"]!.text).toBe("deny 1");
    await client.callTool({ name: "m__echo", arguments: { message: "three" } });
    await until(() =>
      page
        .locator("#counts .bar-allow")
        .textContent()
        .then((t) => t === "allow 3"),
    );
    expect((await bars())["deny"]).toEqual({ text: "deny 1", width: "20%" });
    await client.close();
    await page.reload();
    expect((await bars())["allow"]!.text).toBe("allow 3");
    expect((await bars())["lists"]!.text).toBe("tools/list 3 (3 tools hidden)");
  });

  it("the filter narrows the counts as it narrows the table", async () => {
    await page.goto(`${origin}/ui/live?tool=echo`);
    expect(await page.locator("#live tbody tr").count()).toBe(4);
    const shown = await bars();
    expect([shown["allow"]!.text, shown["deny"]!.text, shown["hidden"]!.text, shown["lists"]!.text]).toEqual([
      "allow 3",
      "deny 1",
      "hidden 0",
      "tools/list 0 (0 tools hidden)",
    ]);
  });

  it("shows the arguments' digest short, the whole value in its title and in a click's selection", async () => {
    await page.goto(`${origin}/ui/live`);
    await screenshot(page, "dashboard-live.png", 500);
    const digest = page.locator("#live tbody tr").first().locator(".digest code");
    const title = (await digest.getAttribute("title")) ?? "";
    expect(title).toMatch(/^[0-9a-f]{64}$/);
    const box = await digest.evaluate((el) => {
      const e = el as unknown as { clientWidth: number; scrollWidth: number };
      return { client: e.clientWidth, scroll: e.scrollWidth };
    });
    expect(Math.abs(box.client - (box.scroll * 12) / 64)).toBeLessThan(2);
    await digest.click();
    expect(
      await page.evaluate(() =>
        String((globalThis as unknown as { getSelection: () => unknown }).getSelection()),
      ),
    ).toBe(title);
  });
});
