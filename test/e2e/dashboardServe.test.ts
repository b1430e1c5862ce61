// The dashboard inside serve --http --dashboard, in Debian's chromium: a call appears on the live view as it
// happens; calls under approval_required from a client that cannot ask its person wait on the approvals
// page, and a person approves one (it goes through) and denies another (refused, recorded with who).
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
const config = configDir({
  "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
  "config.yaml": "enabled_mcp_servers: all\n",
  "policy.yaml":
    'version: "2.0"\ntools:\n  approval_required: ["deploy"]\nenforcement: { unconstrained_tools: allow }\n',
});

let served: HttpServe;
let browser: Browser;
let page: Page;
let dashboard: RunningDashboard;

beforeAll(async () => {
  served = await serveHttp(
    config,
    [
      "--dashboard",
      "--policy",
      join(config, "policy.yaml"),
      "--audit-log",
      auditLog,
      "--approval-timeout",
      "30",
    ],
    { TOOLGATE_TOKEN: DASHBOARD_TOKEN },
  );
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
    const { client } = await httpClient(served.url, DASHBOARD_TOKEN);
    await client.callTool({ name: "m__echo", arguments: { message: "<b>live</b>" } });
    const row = page.locator("#live tbody tr").filter({ hasText: "echo" }).first();
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator("td").nth(4).textContent()).toBe("allow");
    expect(await page.locator("#counts .bar-allow").textContent()).toMatch(/allow [1-9]/);
    await screenshot(page, "dashboard-live.png", 500);
    await client.close();
  });

  it("a call under approval_required from a client that cannot ask waits for the dashboard: approved, it goes through", async () => {
    const { client } = await httpClient(served.url, DASHBOARD_TOKEN);
    const call = client.callTool({ name: "m__deploy", arguments: { target: "prod" } });
    await page.goto(`${dashboard.origin}/ui/approvals`);
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
      approval: { elicitation: { outcome: "accept", approver: "token" } },
    });
    await client.close();
  });

  it("denied in the dashboard, the call is refused and the audit says who denied it", async () => {
    const { client } = await httpClient(served.url, DASHBOARD_TOKEN);
    const call = client.callTool({ name: "m__deploy", arguments: { target: "staging" } });
    await page.goto(`${dashboard.origin}/ui/approvals`);
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
      approval: { elicitation: { outcome: "decline", detail: "denied by token in the dashboard" } },
    });
    await client.close();
  });

  it("the pages need a session: without one, 401 and the sign-in page only", async () => {
    for (const path of ["/ui/", "/ui/live", "/ui/approvals", "/ui/live/events"]) {
      const answer = await fetch(dashboard.origin + path);
      expect(answer.status, path).toBe(401);
      expect(await answer.text(), path).not.toContain("deploy");
    }
  });
});
