// `toolgate dashboard` in a real browser (Debian's chromium through playwright-core) over a configuration
// directory of real servers (server-filesystem, server-everything), a hostile one whose tool names are markup
// and escape codes, one listing 10,000 tools, and one that cannot be started: signing in, the verdict matrix
// cell by cell, names shown inert, 401 without a session, 403 for a cross-site POST, the first page of
// 10,000 tools paged (200 rows a page; the paint time is logged). The screenshot of the matrix in docs/dashboard.md is taken here.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import {
  DASHBOARD_TOKEN,
  HOSTILE_SHOWN,
  launchBrowser,
  navigationTiming,
  screenshot,
  signIn,
  startDashboard,
  writeHostileServer,
  type RunningDashboard,
} from "./dashboardHelpers.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, tempDir } from "./helpers.js";

let dashboard: RunningDashboard;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let attacker: Server;
const dialogs: string[] = [];

beforeAll(async () => {
  const work = tempDir("tg-dash-e2e-");
  const fsRoot = join(work, "files");
  mkdirSync(fsRoot);
  writeFileSync(join(fsRoot, "note.txt"), "hello\n");
  const hostile = writeHostileServer(work);
  const dir = configDir({
    "mcp.json": mcpJson({
      fs: { command: NODE, args: [FILESYSTEM_SERVER, fsRoot] },
      everything: {
        command: NODE,
        args: [EVERYTHING_SERVER],
        allowedTools: ["echo", "get-*", "trigger-*", "bogus_*"],
      },
      hostile: { command: NODE, args: [hostile] },
      gone: { command: join(work, "no-such-server") },
      off: { command: join(work, "never-started") },
      big: { command: NODE, args: [hostile], env: { TOOL_COUNT: "10000" } },
    }),
    "config.yaml":
      "enabled_mcp_servers: [fs, everything, hostile, gone]\nmcp_tools:\n  everything: [echo, get-*]\npolicy: policy.yaml\n",
    "policy.yaml":
      'version: "2.0"\ntools:\n  deny: ["get-env"]\nenforcement:\n  unconstrained_tools: allow\n',
    "roles/reviewer.md": "---\nmcp_tools:\n  fs: [read_text_file, list_directory, nothing_*]\n---\n",
    "roles/big.md": "---\nenabled_mcp_servers: [big]\n---\n",
  });
  dashboard = await startDashboard(["--config-dir", dir]);
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  // Another origin of the same site (127.0.0.1, another port): SameSite=Strict lets the cookie go along.
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(
      `<form method="post" action="${dashboard.url}refresh"><input type="hidden" name="role" value="reviewer">` +
        `<button type="submit">Win a prize</button></form>`,
    );
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  await new Promise((resolve) => attacker?.close(resolve));
});

const cell = (server: string, tool: string, column: string) =>
  page.locator(`section[data-server="${server}"] tr[data-tool="${tool}"] td[data-column="${column}"]`);

describe("without a session", () => {
  it("every page is 401 with the sign-in form, and nothing of the configuration", async () => {
    for (const path of ["", "audit", "?role=reviewer"]) {
      const answer = await fetch(dashboard.url + path, { redirect: "manual" });
      expect(answer.status).toBe(401);
      const body = await answer.text();
      expect(body).toContain('type="password"');
      for (const secret of ["everything", "reviewer", "read_text_file", "policy.yaml"]) {
        expect(body).not.toContain(secret);
      }
    }
  });

  it("the browser gets the sign-in page: one password field; a wrong token is 401 and the page again", async () => {
    const first = await page.goto(dashboard.url);
    expect(first!.status()).toBe(401);
    expect(await page.locator("input").evaluateAll((els) => els.map((e) => e.getAttribute("type")))).toEqual([
      "hidden",
      "password",
    ]);
    await page.getByLabel("Token").fill("not-the-token-at-all");
    const [wrong] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/ui/login") && r.request().method() === "POST"),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    expect(wrong.status()).toBe(401);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("not the dashboard's token");
    expect(await page.locator("table").count()).toBe(0);
  });
});

describe("the verdict matrix", () => {
  it("signs in with the token and shows the default context's servers", async () => {
    await signIn(page, dashboard);
    expect(await page.title()).toBe("Verdict matrix · toolgate");
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "tg_dashboard")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
      path: "/ui",
    });
    expect(await page.locator("section.server").evaluateAll((s) => s.map((e) => e.dataset.server))).toEqual([
      "fs",
      "everything",
      "hostile",
      "gone",
    ]);
  });

  it("a tool hidden by a layer shows ✗ in that layer's column, with the pattern in the title", async () => {
    const config = cell("everything", "trigger-long-running-operation", "config");
    expect(await config.textContent()).toBe("✗");
    expect(await config.getAttribute("class")).toContain("first");
    expect(await config.getAttribute("title")).toBe(
      "hidden by config (config.yaml): no pattern of echo | get-* matches",
    );
    const global = cell("everything", "trigger-long-running-operation", "global");
    expect(await global.textContent()).toBe("✓");
    expect(await global.getAttribute("title")).toBe("trigger-* (global (mcp.json))");
    const policy = cell("everything", "get-env", "policy");
    expect(await policy.textContent()).toBe("✗");
    expect(await policy.getAttribute("title")).toContain("E_TOOL_DENIED");
    expect(await cell("everything", "echo", "policy").getAttribute("title")).toBe("* (policy (policy.yaml))");
    expect(await cell("everything", "echo", "role").textContent()).toBe("·");
    expect(
      await page.locator('section[data-server="everything"] tr[data-tool="echo"] td.verdict').textContent(),
    ).toBe("✓ visible");
  });

  it("dead patterns are flagged with file:line; an unreachable server shows its error; a disabled one is marked", async () => {
    const dead = page.locator('section[data-server="everything"] li.dead');
    expect(await dead.textContent()).toMatch(
      /global pattern 'bogus_\*' matches no allowed tools mcp\.json:\d+:\d+/,
    );
    const gone = page.locator('section[data-server="gone"] .banner.error');
    expect(await gone.textContent()).toContain("E_UPSTREAM_CONNECT");
    expect(await page.locator('li.disabled[data-server="off"]').textContent()).toContain("not started");
  });

  it("picking a role in the form redraws the matrix in that context", async () => {
    await page.getByLabel("Role").selectOption("reviewer");
    await Promise.all([
      page.waitForURL(/role=reviewer/),
      page.getByRole("button", { name: "Show verdicts" }).click(),
    ]);
    const role = cell("fs", "write_file", "role");
    expect(await role.textContent()).toBe("✗");
    expect(await role.getAttribute("title")).toBe(
      "hidden by role (reviewer): no pattern of read_text_file | list_directory | nothing_* matches",
    );
    expect(await cell("fs", "read_text_file", "role").getAttribute("title")).toBe(
      "read_text_file (role (reviewer))",
    );
    expect(await page.locator('section[data-server="fs"] li.dead').textContent()).toMatch(
      /role pattern 'nothing_\*' matches no allowed tools roles\/reviewer\.md:3:\d+/,
    );
    await screenshot(page, "dashboard-matrix.png", 1460);
  });

  it("tool names with markup and escape codes are shown as inert text", async () => {
    await page.goto(dashboard.url);
    const names = await page.locator('section[data-server="hostile"] td.tool').allTextContents();
    expect(names).toEqual(HOSTILE_SHOWN);
    expect(dialogs).toEqual([]);
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.locator("img").count()).toBe(0);
  });
});

describe("cross-site requests", () => {
  it("a form on another origin of the same site is refused (403), though the browser sends the cookie", async () => {
    const other = await context.newPage();
    await other.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    const [answer] = await Promise.all([
      other.waitForResponse((r) => r.url().endsWith("/ui/refresh")),
      other.getByRole("button", { name: "Win a prize" }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain("E_DASHBOARD_FORBIDDEN");
    await other.close();
  });

  it("with the session's cookie and CSRF token, a wrong Origin is still 403; the right one is accepted", async () => {
    await page.goto(dashboard.url);
    const csrf = await page.locator('form.refresh input[name="csrf"]').getAttribute("value");
    const session = (await context.cookies()).find((c) => c.name === "tg_dashboard")!.value;
    const post = (origin: string) =>
      fetch(`${dashboard.url}refresh`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: `tg_dashboard=${session}`,
          origin,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: `csrf=${csrf}`,
      });
    expect((await post("http://evil.example")).status).toBe(403);
    expect((await post("http://127.0.0.1:1")).status).toBe(403);
    expect((await post(dashboard.origin)).status).toBe(303);
    expect(DASHBOARD_TOKEN.length).toBeGreaterThanOrEqual(16);
  });
});

describe("a catalog of 10,000 tools", () => {
  it("is paged: the first page holds 200 of the 10,000 tools (its paint time is logged, not asserted)", async () => {
    await page.goto(`${dashboard.url}?role=big`);
    const cold = await navigationTiming(page);
    await page.reload();
    const warm = await navigationTiming(page);
    console.log(
      `dashboard, 10,000 tools: first contentful paint ${cold.firstContentfulPaint.toFixed(0)} ms with the ` +
        `catalog fetched (server started), ${warm.firstContentfulPaint.toFixed(0)} ms from the cached catalog ` +
        `(response end ${cold.responseEnd.toFixed(0)} / ${warm.responseEnd.toFixed(0)} ms)`,
    );
    // Timings depend on the machine's load; what keeps the page fast is that it holds one page of rows.
    expect(warm.firstContentfulPaint).toBeGreaterThan(0);
    const rows = page.locator('section[data-server="big"] tbody tr');
    expect(await rows.count()).toBe(200);
    expect(await rows.first().getAttribute("data-tool")).toBe("tool_00000");
    expect(await page.locator('section[data-server="big"] p.meta').first().textContent()).toContain(
      "tools 1–200 of 10000",
    );
    await Promise.all([
      page.waitForURL(/page\.big=2/),
      page.locator("nav.pages").first().getByRole("link", { name: "2", exact: true }).click(),
    ]);
    expect(await rows.first().getAttribute("data-tool")).toBe("tool_00200");
    expect(
      await page.locator("nav.pages").first().getByRole("link", { name: "50", exact: true }).count(),
    ).toBe(1);
  });
});
