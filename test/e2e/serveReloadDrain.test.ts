// serve as a service: a policy edited while clients are connected decides their next request, a broken edit
// is refused with its errors and the old configuration stays, a token removed from the tokens file stops
// working at once (two principals: the other is untouched), SIGHUP reloads rather than stopping, and
// SIGTERM during a 3 s call lets it finish while new requests are refused. Real server: server-everything.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { EVERYTHING_SERVER, NODE, readAudit, tempDir } from "./helpers.js";
import { httpClient, serveHttp, textOf, type HttpServe } from "./serveHelpers.js";

const ALLOW_ALL = 'version: "2.0"\ntools:\n  allow: ["*"]\nenforcement: { unconstrained_tools: allow }\n';
const DENY_ECHO =
  'version: "2.0"\ntools:\n  allow: ["*"]\n  deny: ["echo"]\nenforcement: { unconstrained_tools: allow }\n';
const BROKEN = 'version: "2.0"\ntools:\n  allow: ["*"\n';
const ALICE = "alice-reload-token-0123456789abcdef";
const METRICS_TOKEN = "metrics-reload-token-0123456789";
const BOB = "bob-reload-token-0123456789abcdef";
const tokens = (names: Array<[string, string]>): string =>
  names.map(([name, token]) => `- name: ${name}\n  token: ${token}\n`).join("");

const running: HttpServe[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

function world() {
  const dir = configDir({
    "mcp.json": mcpJson({ ev: { command: NODE, args: [EVERYTHING_SERVER] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
  });
  const files = tempDir("tg-reload-serve-");
  const policy = join(files, "policy.yaml");
  const tokensFile = join(files, "tokens.yaml");
  const audit = join(files, "audit.jsonl");
  writeFileSync(policy, ALLOW_ALL);
  writeFileSync(
    tokensFile,
    tokens([
      ["alice", ALICE],
      ["bob", BOB],
    ]),
  );
  return { dir, policy, tokensFile, audit };
}

const toolNames = async (c: Awaited<ReturnType<typeof httpClient>>): Promise<string[]> =>
  (await c.client.listTools()).tools.map((t) => t.name);
const reloads = (audit: string) => readAudit(audit).filter((e) => e.event === "config_reload");

describe("serve reloads its configuration", () => {
  it("an edit decides open sessions' next request; a broken edit is refused; a removed token stops at once", async () => {
    const w = world();
    const serve = await serveHttp(w.dir, [
      "--policy",
      w.policy,
      "--tokens",
      w.tokensFile,
      "--audit-log",
      w.audit,
      "--metrics-token",
      METRICS_TOKEN,
    ]);
    running.push(serve);
    const alice = await httpClient(serve.url, ALICE);
    const bob = await httpClient(serve.url, BOB);
    expect(await toolNames(alice)).toContain("ev__echo");

    writeFileSync(w.policy, DENY_ECHO);
    await expect
      .poll(() => serve.stderr(), { timeout: 30_000 })
      .toMatch(/configuration reloaded \(\S*policy\.yaml\)/);
    expect(await toolNames(alice)).not.toContain("ev__echo");
    expect(await toolNames(bob)).not.toContain("ev__echo");
    const refused = (await alice.client.callTool({ name: "ev__echo", arguments: { message: "x" } })) as {
      isError?: boolean;
    };
    expect(refused.isError).toBe(true);
    expect(reloads(w.audit)).toMatchObject([{ result: "applied", session: "gateway", code: null }]);

    writeFileSync(w.policy, BROKEN);
    await expect.poll(() => serve.stderr(), { timeout: 30_000 }).toContain("E_RELOAD_REFUSED");
    expect(serve.stderr()).toMatch(/policy\.yaml:\d+:\d+/);
    expect(await toolNames(alice)).not.toContain("ev__echo");
    expect(reloads(w.audit)[1]).toMatchObject({ result: "refused", code: "E_RELOAD_REFUSED" });

    // bob's entry goes: his token is refused from the next request on; alice's session goes on.
    writeFileSync(w.policy, ALLOW_ALL);
    writeFileSync(w.tokensFile, tokens([["alice", ALICE]]));
    await expect
      .poll(() => reloads(w.audit).filter((e) => e.result === "applied").length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(2);
    await expect
      .poll(() => serve.stderr(), { timeout: 30_000 })
      .toMatch(/1 closed \(their tokens-file entry is gone/);
    await expect(bob.client.listTools()).rejects.toThrow();
    const fresh = await fetch(serve.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${BOB}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } },
      }),
    });
    expect(fresh.status).toBe(401);
    expect(await toolNames(alice)).toContain("ev__echo");

    // The reloads are counted where the on-call looks.
    const metrics = await fetch(new URL("/metrics", serve.url), {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await metrics.text();
    expect(text).toMatch(/^toolgate_reloads_total\{result="refused"\} 1$/m);
    expect(
      Number(/^toolgate_reloads_total\{result="applied"\} (\d+)$/m.exec(text)?.[1]),
    ).toBeGreaterThanOrEqual(2);

    // SIGHUP reloads and stops nothing.
    serve.proc.kill("SIGHUP");
    await expect.poll(() => serve.stderr(), { timeout: 30_000 }).toContain("configuration reloaded (SIGHUP)");
    expect(
      textOf(await alice.client.callTool({ name: "ev__echo", arguments: { message: "still" } })),
    ).toContain("still");
  }, 120_000);

  it("SIGTERM during a 3 s call lets it finish, refuses new requests with 503, then exits 0", async () => {
    const w = world();
    const serve = await serveHttp(w.dir, ["--policy", w.policy, "--tokens", w.tokensFile]);
    const alice = await httpClient(serve.url, ALICE);
    await toolNames(alice);
    const exited = new Promise<number | null>((resolve) => serve.proc.on("exit", (code) => resolve(code)));
    const call = alice.client.callTool(
      { name: "ev__trigger-long-running-operation", arguments: { duration: 3, steps: 3 } },
      undefined,
      { timeout: 60_000 },
    );
    await new Promise((r) => setTimeout(r, 1000));
    serve.proc.kill("SIGTERM");
    await expect.poll(() => serve.stderr(), { timeout: 10_000 }).toContain("SIGTERM: draining");
    // The orchestrator hears it first: not ready (draining), though alive.
    const ready = await fetch(new URL("/readyz", serve.url)).catch(() => null);
    if (ready !== null) {
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ check: "draining" });
    }
    const refused = await fetch(serve.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ALICE}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} }),
    }).catch(() => null);
    // The listener may already be closed when the call finished first: then there is no answer at all.
    if (refused !== null) expect(refused.status).toBe(503);
    expect(textOf(await call)).toMatch(/Long running operation completed/i);
    expect(await exited).toBe(0);
    expect(serve.stderr()).toContain("drained: every request in flight was answered");
  }, 120_000);
});
