// Signing in to serve's dashboard with the identity provider: a real OpenID provider (oidc-provider) in this
// process, the dashboard as its public client (authorization code with PKCE), driven in chromium through
// the provider's own login and consent pages; the access token is checked as any of the gateway's.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { DASHBOARD_TOKEN, launchBrowser } from "./dashboardHelpers.js";
import { FIXTURES, NODE } from "./helpers.js";
import { startIssuer, type Issuer } from "./oidcIssuer.js";
import { freePort } from "./replicaHelpers.js";
import { serveHttp, type HttpServe } from "./serveHelpers.js";

let issuer: Issuer;
let served: HttpServe;
let browser: Browser;
let origin = "";

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  issuer = await startIssuer({ dashboardRedirect: `${origin}/ui/oauth/callback` });
  const config = configDir({
    "mcp.json": mcpJson({ m: { command: NODE, args: [join(FIXTURES, "modernServer.mjs")] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "tokens.yaml": `- name: people\n  claims: { client_id: dashboard }\n  use: [dashboard]\n- name: ops\n  token: ${DASHBOARD_TOKEN}\n  use: [dashboard]\n`,
  });
  served = await serveHttp(config, [
    "--http",
    String(port),
    "--tokens",
    join(config, "tokens.yaml"),
    "--dashboard",
    "--oauth-issuer",
    issuer.url,
    "--dashboard-client-id",
    "dashboard",
    "--oauth-scope",
    "tools:call",
  ]);
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await issuer?.stop();
});

describe("the dashboard's sign-in with the identity provider", () => {
  it("goes to the provider, through its login and consent, and back signed in", async () => {
    // Loopback only: the provider's pages ask for a web font elsewhere, which is never fetched.
    const context = await browser.newContext();
    await context.route("**/*", (route) =>
      new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    await page.goto(`${origin}/ui/`);
    await page.getByRole("link", { name: `Sign in with ${new URL(issuer.url).host}` }).click();
    await page.locator('input[name="login"]').fill("alice");
    await page.locator('input[name="password"]').fill("any");
    await page.getByRole("button", { name: /sign-?in/i }).click({ timeout: 30_000 });
    await page.getByRole("button", { name: /continue/i }).click({ timeout: 30_000 }); // the provider's consent
    await page.waitForURL(`${origin}/ui/`);
    await page.getByRole("heading", { name: "Verdict matrix" }).waitFor();
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(1);
    await context.close();
  });

  it("a person's attempt survives 200 attempts started by another client meanwhile", async () => {
    const context = await browser.newContext();
    await context.route("**/*", (route) =>
      new URL(route.request().url()).hostname === "127.0.0.1" ? route.continue() : route.abort(),
    );
    const page = await context.newPage();
    await page.goto(`${origin}/ui/`);
    await page.getByRole("link", { name: `Sign in with ${new URL(issuer.url).host}` }).click();
    await page.locator('input[name="login"]').waitFor();
    // Another client starts attempts while the person is at the provider's login page.
    for (let i = 0; i < 200; i++) {
      const answer = await fetch(`${origin}/ui/oauth/start`, { redirect: "manual" });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toContain(`${issuer.url}/auth?`);
    }
    await page.locator('input[name="login"]').fill("bob");
    await page.locator('input[name="password"]').fill("any");
    await page.getByRole("button", { name: /sign-?in/i }).click({ timeout: 30_000 });
    await page.getByRole("button", { name: /continue/i }).click({ timeout: 30_000 });
    // Either page: an attempt pushed out would end on "Not signed in", and should fail here, not time out.
    const heading = page.getByRole("heading", { name: /^(Verdict matrix|Not signed in)$/ });
    await heading.waitFor({ timeout: 15_000 });
    expect(await heading.textContent()).toBe("Verdict matrix");
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(1);
    await context.close();
  });

  it("refuses a callback this browser did not start", async () => {
    const answer = await fetch(`${origin}/ui/oauth/callback?state=forged&code=x`);
    expect(answer.status).toBe(401);
    expect(await answer.text()).toContain("this sign-in was not started here");
  });
});
