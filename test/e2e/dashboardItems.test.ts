// The dashboard's verdict matrix with the policy's resources: and prompts: sections, as the built CLI over
// real servers (server-everything: resources, templates, prompts; server-filesystem: tools only), read over
// plain HTTP after the page's own sign-in: each item's verdict beside the tools, the sections' rules among
// the filter layers, W_ITEM_UNMATCHED entries among the notes, and nothing of it without a section.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { DASHBOARD_TOKEN, startDashboard, type RunningDashboard } from "./dashboardHelpers.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, tempDir } from "./helpers.js";

let withSections: RunningDashboard;
let without: RunningDashboard;

function directory(policy: string): string {
  return configDir({
    "mcp.json": mcpJson({
      everything: { command: NODE, args: [EVERYTHING_SERVER] },
      fs: { command: NODE, args: [FILESYSTEM_SERVER, tempDir("tg-dash-items-fs-")] },
    }),
    "config.yaml": "enabled_mcp_servers: all\npolicy: policy.yaml\n",
    "policy.yaml": policy,
  });
}

beforeAll(async () => {
  [withSections, without] = await Promise.all([
    startDashboard([
      "--config-dir",
      directory(
        [
          'version: "2.0"',
          "resources:",
          '  deny: ["demo://resource/static/document/architecture.md", "demo://resource/dynamic/blob/{resourceId}"]',
          "prompts:",
          '  allow: ["simple-prompt", "nothing-*"]',
          "",
        ].join("\n"),
      ),
    ]),
    startDashboard(["--config-dir", directory('version: "2.0"\ntools:\n  deny: ["get-env"]\n')]),
  ]);
});

afterAll(async () => {
  await Promise.all([withSections?.stop(), without?.stop()]);
});

function cookie(res: Response, name: string): string {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (line === undefined) throw new Error(`no ${name} cookie`);
  return line.slice(0, line.indexOf(";"));
}

/** Signs in as the page's form does, then fetches the matrix. */
async function matrixPage(d: RunningDashboard): Promise<string> {
  const login = await fetch(`${d.origin}/ui/login`);
  const nonce = cookie(login, "tg_login");
  const signedIn = await fetch(`${d.origin}/ui/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      origin: d.origin,
      cookie: nonce,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: `csrf=${nonce.split("=")[1]}&token=${DASHBOARD_TOKEN}`,
  });
  expect(signedIn.status).toBe(303);
  const page = await fetch(d.url, { headers: { cookie: cookie(signedIn, "tg_dashboard") } });
  expect(page.status).toBe(200);
  return page.text();
}

/** The server's section of the page. */
function section(html: string, server: string): string {
  const start = html.indexOf(`data-server="${server}"`);
  expect(start).toBeGreaterThan(-1);
  const end = html.indexOf("</section>", start);
  return html.slice(start, end);
}

function itemRow(html: string, name: string): string {
  const m = new RegExp(`<tr data-item="${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}"[^\\n]*</tr>`).exec(
    html,
  );
  if (m === null) throw new Error(`no row for ${name}`);
  return m[0];
}

describe("dashboard: resources and prompts beside the tools", () => {
  it("each resource, template and prompt of server-everything with its verdict", async () => {
    const everything = section(await matrixPage(withSections), "everything");
    expect(everything).toContain("<h3>Resources and prompts</h3>");
    expect(everything).toContain(
      "resources 6 allowed / 7 total · resource templates 1 allowed / 2 total · prompts 1 allowed / 4 total",
    );
    expect(itemRow(everything, "demo://resource/static/document/architecture.md")).toContain(
      "✗ hidden by resources.deny &#39;demo://resource/static/document/architecture.md&#39;",
    );
    expect(itemRow(everything, "demo://resource/static/document/features.md")).toContain("✓ visible");
    expect(itemRow(everything, "demo://resource/dynamic/blob/{resourceId}")).toContain(
      'data-list="templates"',
    );
    expect(itemRow(everything, "args-prompt")).toContain("E_PROMPT_NOT_ALLOWED");
    expect(itemRow(everything, "simple-prompt")).toContain("✓ visible");
    expect(everything).toContain("prompts: <code>allow: simple-prompt | nothing-* · deny: (none)</code>");
    expect(everything).toContain(
      "prompts.allow entry &#39;nothing-*&#39; matches nothing &#39;everything&#39; offers",
    );
  });

  it("server-filesystem: its tools as ever, and a word that it offers no resources or prompts", async () => {
    const fs = section(await matrixPage(withSections), "fs");
    expect(fs).toContain('data-tool="read_text_file"');
    expect(fs).toContain("the server offers no resources or prompts");
    expect(fs).not.toContain("<tr data-item=");
  });

  it("a policy without the sections draws no item table", async () => {
    const page = await matrixPage(without);
    expect(section(page, "everything")).toContain('data-tool="echo"');
    expect(page).not.toContain("Resources and prompts");
    expect(page).not.toContain("data-item=");
  });
});
