// The dashboard inside serve --http --dashboard, in Debian's chromium: a call appears on the live view as it
// happens; calls under approval_required from a client that cannot ask its person wait on the approvals
// page, and an operator approves one (it goes through) and denies another (refused, recorded with who).
// Who may do what: a client's token does not sign in; an operator's does not call tools; an approver never
// sees or answers their own call, and with approves: only the principals it names; a viewer answers nothing;
// signing out ends the live stream; one principal filling its share of the desk leaves another's call waiting.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { configDir, mcpJson } from "./configDirHelpers.js";
import {
  DASHBOARD_TOKEN,
  launchBrowser,
  screenshot,
  signIn,
  type RunningDashboard,
} from "./dashboardHelpers.js";
import { FIXTURES, NODE, readAudit, tempDir } from "./helpers.js";
import { httpClient, serveHttp, textOf, until, type HttpServe } from "./serveHelpers.js";

const dir = tempDir("tg-dash-serve-");
const auditLog = join(dir, "audit.jsonl");
/** MCP clients. */
const CI = "e2e-ci-token-0123456789abcdef";
const BOT = "e2e-bot-token-0123456789abcdef";
/** Operators: alice approves everyone's calls (DASHBOARD_TOKEN), lead is both a client and an approver of ci. */
const LEAD = "e2e-lead-token-0123456789abcdef";
const VIEWER = "e2e-viewer-token-0123456789abcd";
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml":
    'version: "2.0"\ntools:\n  approval_required: ["deploy"]\nenforcement: { unconstrained_tools: allow }\n',
  "tokens.yaml": [
    `- name: ci\n  token: ${CI}`,
    `- name: bot\n  token: ${BOT}`,
    `- name: alice\n  token: ${DASHBOARD_TOKEN}\n  use: [dashboard]\n  dashboard: approver`,
    `- name: lead\n  token: ${LEAD}\n  use: [mcp, dashboard]\n  dashboard: approver\n  approves: [ci, lead]`,
    `- name: viewer\n  token: ${VIEWER}\n  use: [dashboard]`,
  ].join("\n"),
});

let served: HttpServe;

/**
 * Goes to `url`; the approvals page reloads itself every 2 s, and a reload of the page already shown may
 * interrupt the navigation: then the page is where it was asked to be, once loaded.
 */
async function visit(p: Page, url: string): Promise<void> {
  try {
    await p.goto(url);
  } catch (error) {
    if (!/interrupted by another navigation/.test(String(error))) throw error;
    await p.waitForLoadState();
  }
}
let browser: Browser;
let page: Page;
let dashboard: RunningDashboard;

beforeAll(async () => {
  served = await serveHttp(config, [
    "--dashboard",
    "--policy",
    join(config, "policy.yaml"),
    "--audit-log",
    auditLog,
    "--approval-timeout",
    "30",
    "--tokens",
    join(config, "tokens.yaml"),
  ]);
  const origin = new URL(served.url).origin;
  dashboard = { url: `${origin}/ui/`, origin, stderr: served.stderr, stop: served.stop };
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, dashboard);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe("serve --http --dashboard", () => {
  it("shows a call on the live view as it happens", async () => {
    await page.goto(`${dashboard.origin}/ui/live`);
    const { client } = await httpClient(served.url, CI);
    await client.callTool({ name: "m__echo", arguments: { message: "<b>live</b>" } });
    const row = page.locator("#live tbody tr").filter({ hasText: "echo" }).first();
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator("td").nth(4).textContent()).toBe("allow");
    expect(await page.locator("#counts .bar-allow").textContent()).toMatch(/allow [1-9]/);
    await client.close();
  });

  it("a call under approval_required from a client that cannot ask waits for the dashboard: approved, it goes through", async () => {
    const { client } = await httpClient(served.url, CI);
    const call = client.callTool({ name: "m__deploy", arguments: { target: "prod" } });
    await visit(page, `${dashboard.origin}/ui/approvals`);
    const waiting = page.locator('section.approval[data-tool="deploy"]');
    await waiting.waitFor({ timeout: 10_000 });
    expect(await waiting.textContent()).toContain("prod");
    await screenshot(page, "dashboard-approvals.png", 500);
    await waiting.getByRole("button", { name: "Approve" }).click();
    expect(textOf(await call)).toBe("deployed prod");
    const event = readAudit(auditLog)
      .filter((e) => e.event === "tools/call" && e.tool === "deploy")
      .at(-1)!;
    expect(event).toMatchObject({
      decision: "allow",
      principal: "ci",
      approval: { elicitation: { outcome: "accept", approver: "alice" } },
    });
    await client.close();
  });

  it("denied in the dashboard, the call is refused and the audit says who denied it", async () => {
    const { client } = await httpClient(served.url, CI);
    const call = client.callTool({ name: "m__deploy", arguments: { target: "staging" } });
    await visit(page, `${dashboard.origin}/ui/approvals`);
    const waiting = page.locator('section.approval[data-tool="deploy"]');
    await waiting.waitFor({ timeout: 10_000 });
    await waiting.getByRole("button", { name: "Deny" }).click();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("E_APPROVAL_REQUIRED");
    await until(() =>
      page
        .locator("#no-approvals")
        .count()
        .then((n) => n === 1),
    );
    const event = readAudit(auditLog)
      .filter((e) => e.event === "tools/call" && e.tool === "deploy")
      .at(-1)!;
    expect(event).toMatchObject({
      decision: "deny",
      approval: { elicitation: { outcome: "decline", detail: "denied by alice in the dashboard" } },
    });
    await client.close();
  });

  it("a client's token does not open the dashboard, and an operator's token calls no tool", async () => {
    const other = await browser.newPage();
    await other.goto(dashboard.url);
    await other.getByLabel("Token").fill(CI);
    await other.getByRole("button", { name: "Sign in" }).click();
    await other.getByText("That is an MCP client's token").waitFor({ timeout: 10_000 });
    expect(other.url()).toContain("/ui/login");
    await other.close();
    // The operator at /mcp: 403 with why, recorded without the token.
    const answer = await fetch(served.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${DASHBOARD_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("alice may not call tools");
    expect(readAudit(auditLog).some((e) => e.code === "E_AUTH_USE")).toBe(true);
    expect(readFileSync(auditLog, "utf8")).not.toContain(DASHBOARD_TOKEN);
  });

  it("an approver sees neither their own call nor calls of principals approves: leaves out, and cannot answer them", async () => {
    const lead = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(lead, dashboard, LEAD);
    const clients = await Promise.all([httpClient(served.url, LEAD), httpClient(served.url, BOT)]);
    const [own, bots] = [
      clients[0].client.callTool({ name: "m__deploy", arguments: { target: "lead-own" } }),
      clients[1].client.callTool({ name: "m__deploy", arguments: { target: "bot-call" } }),
    ];
    // alice (approves everyone) sees both; lead sees neither.
    await visit(page, `${dashboard.origin}/ui/approvals`);
    const waiting = page.locator('section.approval[data-tool="deploy"]');
    await until(() => waiting.count().then((n) => n === 2));
    await visit(lead, `${dashboard.origin}/ui/approvals`);
    await lead.locator("#no-approvals").waitFor({ timeout: 10_000 });
    expect(await lead.content()).not.toContain("lead-own");
    expect(await lead.content()).not.toContain("bot-call");
    // lead answers its own call with the id alice's page shows: refused, and the call still waits.
    const ownId = await page
      .locator("section.approval", { hasText: "lead-own" })
      .locator('input[name="id"]')
      .getAttribute("value");
    const csrf = await lead.locator('input[name="csrf"]').first().getAttribute("value");
    const refused = await lead.request.post(`${dashboard.origin}/ui/approvals/answer`, {
      form: { csrf: csrf!, id: ownId!, decision: "approve" },
      headers: { origin: dashboard.origin },
    });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain("lead made this call and cannot approve it themselves");
    expect(await waiting.count()).toBe(2);
    // alice answers both: lead's approved, bot's denied; the audit names each principal and approver.
    await page
      .locator("section.approval", { hasText: "lead-own" })
      .getByRole("button", { name: "Approve" })
      .click();
    expect(textOf(await own)).toBe("deployed lead-own");
    await page
      .locator("section.approval", { hasText: "bot-call" })
      .getByRole("button", { name: "Deny" })
      .click();
    expect((await bots).isError).toBe(true);
    const events = readAudit(auditLog).filter((e) => e.event === "tools/call" && e.tool === "deploy");
    expect(events.at(-2)).toMatchObject({
      principal: "lead",
      approval: { elicitation: { approver: "alice" } },
    });
    expect(events.at(-1)).toMatchObject({ principal: "bot", decision: "deny" });
    // A call of ci, which lead approves: lead sees it and answers it.
    const ci = await httpClient(served.url, CI);
    const ciCall = ci.client.callTool({ name: "m__deploy", arguments: { target: "ci-call" } });
    await visit(lead, `${dashboard.origin}/ui/approvals`);
    const forLead = lead.locator("section.approval", { hasText: "ci-call" });
    await forLead.waitFor({ timeout: 10_000 });
    await forLead.getByRole("button", { name: "Approve" }).click();
    expect(textOf(await ciCall)).toBe("deployed ci-call");
    expect(
      readAudit(auditLog)
        .filter((e) => e.tool === "deploy")
        .at(-1),
    ).toMatchObject({
      principal: "ci",
      approval: { elicitation: { approver: "lead" } },
    });
    for (const c of [...clients, ci]) await c.client.close();
    await lead.close();
  });

  it("a viewer sees the pages but answers nothing", async () => {
    const viewer = await browser.newPage();
    await signIn(viewer, dashboard, VIEWER);
    await viewer.goto(`${dashboard.origin}/ui/approvals`);
    await viewer.locator("#viewer-only").waitFor({ timeout: 10_000 });
    const csrf = await viewer.locator('input[name="csrf"]').first().getAttribute("value");
    const refused = await viewer.request.post(`${dashboard.origin}/ui/approvals/answer`, {
      form: { csrf: csrf!, id: "00000000-0000-4000-8000-000000000000", decision: "approve" },
      headers: { origin: dashboard.origin },
    });
    expect(refused.status()).toBe(404);
    await viewer.close();
  });

  it("signing out ends the live stream at once", async () => {
    const other = await browser.newPage();
    await signIn(other, dashboard, VIEWER);
    const csrf = await other.locator('input[name="csrf"]').first().getAttribute("value");
    const stream = other.request.get(`${dashboard.origin}/ui/live/events`, { timeout: 20_000 });
    // Let the stream open before signing out.
    await new Promise((r) => setTimeout(r, 500));
    const out = await other.request.post(`${dashboard.origin}/ui/logout`, {
      form: { csrf: csrf! },
      headers: { origin: dashboard.origin },
      maxRedirects: 0,
    });
    expect(out.status()).toBe(303);
    const ended = await stream;
    expect(ended.status()).toBe(200);
    expect(await ended.text()).toContain(": live");
    await other.close();
  });

  it("one principal filling its share of waiting calls leaves another principal's call waiting", async () => {
    const bot = await httpClient(served.url, BOT);
    const controller = new AbortController();
    const flood = Array.from({ length: 33 }, (_, i) =>
      bot.client
        .callTool({ name: "m__deploy", arguments: { target: `flood-${i}` } }, undefined, {
          signal: controller.signal,
        })
        .catch(() => null),
    );
    await visit(page, `${dashboard.origin}/ui/approvals`);
    const waiting = page.locator('section.approval[data-tool="deploy"]');
    await until(() => waiting.count().then((n) => n === 32), 20_000);
    const refusedOne = (await Promise.race(flood.map((f) => f.then((r) => r))))!;
    expect(textOf(refusedOne)).toContain("at most 32 per principal");
    const ci = await httpClient(served.url, CI);
    const ciCall = ci.client.callTool({ name: "m__deploy", arguments: { target: "ci-after-flood" } });
    const forCi = page.locator("section.approval", { hasText: "ci-after-flood" });
    await page.reload();
    await forCi.waitFor({ timeout: 10_000 });
    await forCi.getByRole("button", { name: "Approve" }).click();
    expect(textOf(await ciCall)).toBe("deployed ci-after-flood");
    controller.abort();
    await Promise.all(flood);
    await until(() => waiting.count().then((n) => n === 0), 20_000);
    await bot.client.close();
    await ci.client.close();
  });

  it("the pages need a session: without one, 401 and the sign-in page only", async () => {
    for (const path of ["/ui/", "/ui/live", "/ui/approvals", "/ui/live/events"]) {
      const answer = await fetch(dashboard.origin + path);
      expect(answer.status, path).toBe(401);
      expect(await answer.text(), path).not.toContain("deploy");
    }
  });
});
