// The dashboard's what-if view in-process, over a real configuration directory and an audit log written by
// the gateway's own sink: which files it offers as candidates (and why the others are not), that a request
// names a candidate only by a listed name, that the replay is `toolgate replay`'s (its verdict diff), that
// only a signed-in operator reaches it, and that a replay inside the gateway lets the event loop run and
// runs one at a time.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCallEvent } from "../../../src/audit/events.js";
import { JsonlFileSink } from "../../../src/audit/jsonlFileSink.js";
import { CatalogCache } from "../../../src/dashboard/catalogCache.js";
import { chooseCandidate, listCandidates } from "../../../src/dashboard/candidates.js";
import { startDashboard, type RunningDashboard } from "../../../src/dashboard/server.js";
import { WhatIfRunner } from "../../../src/dashboard/whatIf.js";
import { localPrincipal } from "../../../src/engine/model/principal.js";
import { candidateGates } from "../../../src/replay/candidateGates.js";
import { replayLogs } from "../../../src/replay/replayLogs.js";
import { loadConfigDir } from "../../../src/config/configDir.js";
import { loadPolicyFile } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";

const TOKEN = "unit-whatif-token-0123456789";
const IN_FORCE = 'version: "2.0"\ntools:\n  allow: [read_text_file, write_file]\n';
const NO_WRITES = 'version: "2.0"\ntools:\n  allow: [read_text_file]\n';
const BROKEN = 'version: "2.0"\ntools:\n  allow: read_text_file\n';

const dir = mkdtempSync(join(tmpdir(), "tg-whatif-unit-"));
const outside = mkdtempSync(join(tmpdir(), "tg-whatif-outside-"));
const log = join(outside, "audit.jsonl");
let dashboard: RunningDashboard;
const logged: string[] = [];

function call(i: number, tool: string): ToolCallEvent {
  return {
    request_id: i,
    time: "2026-12-02T10:00:00.000Z",
    session: `s${i % 3}`,
    policy_digest: "a".repeat(64),
    server: "fs",
    principal: i % 2 === 0 ? "ci" : "alice",
    event: "tools/call",
    tool,
    decision: "allow",
    code: null,
    rule: { layer: "policy", kind: "allow", value: tool },
    reason: "allowed",
    warnings: [],
    args_sha256: "b".repeat(64),
    args: { path: `notes-${i}.txt` },
  };
}

/** `n` calls: every fourth a write_file, the others reads. */
function writeLog(path: string, n: number): void {
  const sink = new JsonlFileSink(path);
  for (let i = 0; i < n; i++) sink.write(call(i, i % 4 === 0 ? "write_file" : "read_text_file"));
  sink.close();
}

interface Answer {
  status: number;
  body: string;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: dashboard.port,
        method: "GET",
        path,
        headers: { host: `127.0.0.1:${dashboard.port}`, ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function signedIn(): Promise<string> {
  const page = await new Promise<{ cookie: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: dashboard.port,
        path: "/ui/login",
        headers: { host: `127.0.0.1:${dashboard.port}` },
      },
      (res) => {
        res.resume();
        const set = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
        const line = set.find((c) => c.startsWith("tg_login="))!;
        resolve({ cookie: line.slice("tg_login=".length, line.indexOf(";")) });
      },
    );
    req.on("error", reject);
    req.end();
  });
  const body = `csrf=${page.cookie}&token=${TOKEN}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: dashboard.port,
        method: "POST",
        path: "/ui/login",
        headers: {
          host: `127.0.0.1:${dashboard.port}`,
          origin: `http://127.0.0.1:${dashboard.port}`,
          cookie: `tg_login=${page.cookie}`,
          "content-type": "application/x-www-form-urlencoded",
        },
      },
      (res) => {
        res.resume();
        const set = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
        const line = set.find((c) => c.startsWith("tg_dashboard="));
        if (line === undefined) reject(new Error(`not signed in (${res.statusCode})`));
        else resolve(line.slice(0, line.indexOf(";")));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { fs: { command: "unused" } } }));
  writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\npolicy: policy.yaml\n");
  writeFileSync(join(dir, "policy.yaml"), IN_FORCE);
  writeFileSync(join(dir, "no-writes.yaml"), NO_WRITES);
  writeFileSync(join(dir, "broken.yml"), BROKEN);
  writeFileSync(join(dir, "policy.tests.yaml"), "policy: policy.yaml\ncases: []\n");
  writeFileSync(join(dir, ".hidden.yaml"), NO_WRITES);
  writeFileSync(join(dir, "notes.txt"), NO_WRITES);
  writeFileSync(join(outside, "secret.yaml"), NO_WRITES);
  symlinkSync(join(outside, "secret.yaml"), join(dir, "linked.yaml"));
  mkdirSync(join(dir, "roles"));
  writeFileSync(join(dir, "roles", "nested.yaml"), NO_WRITES);
  writeLog(log, 40);
  dashboard = await startDashboard({
    host: "127.0.0.1",
    port: 0,
    signIn: (presented) =>
      presented === TOKEN
        ? {
            principal: localPrincipal("operator"),
            rights: { mcp: false, dashboard: "viewer", approves: null },
          }
        : { refused: "That is an MCP client's token: the dashboard admits operators." },
    dir,
    auditLogs: [log],
    locatePolicy: (config) =>
      config.global.policy == null
        ? null
        : { path: join(dir, config.global.policy.path), shown: "policy.yaml" },
    catalogs: new CatalogCache(() => Promise.reject(new Error("no catalogs here")), 60_000),
    log: (line) => void logged.push(line),
  });
});

afterAll(async () => {
  await dashboard?.close();
});

describe("candidate policies", () => {
  it("lists the directory's own policy files but the one in force, and says why the others are not", () => {
    const listing = listCandidates(dir, join(dir, "policy.yaml"));
    expect(listing.candidates).toEqual(["broken.yml", "no-writes.yaml"]);
    expect(Object.fromEntries(listing.skipped.map((s) => [s.name, s.why]))).toEqual({
      "config.yaml": "not a policy file (no top-level `version:`)",
      "linked.yaml": "a symbolic link",
      "mcp.json": "not a policy file (no top-level `version:`)",
      "policy.tests.yaml": "not a policy file (no top-level `version:`)",
      "policy.yaml": "the policy in force",
    });
  });

  it("is chosen by its listed name only: paths, .. and unlisted names are refused", () => {
    const listing = listCandidates(dir, join(dir, "policy.yaml"));
    expect(chooseCandidate(listing, "no-writes.yaml")).toEqual({
      ok: true,
      name: "no-writes.yaml",
      path: join(dir, "no-writes.yaml"),
    });
    for (const name of [
      "../" + outside.split("/").pop() + "/secret.yaml",
      join(outside, "secret.yaml"),
      "roles/nested.yaml",
      "..\\secret.yaml",
      "..",
      "linked.yaml",
      "policy.yaml",
      ".hidden.yaml",
      "missing.yaml",
      "",
    ]) {
      expect(chooseCandidate(listing, name).ok, name).toBe(false);
    }
  });
});

describe("GET /ui/whatif", () => {
  it("without a session: the sign-in page, nothing of the directory or the logs", async () => {
    const answer = await get("/ui/whatif?candidate=no-writes.yaml");
    expect(answer.status).toBe(401);
    expect(answer.body).not.toContain("no-writes.yaml");
    // A client's token as a bearer is no session either.
    const bearer = await get("/ui/whatif", { authorization: `Bearer ${TOKEN}` });
    expect(bearer.status).toBe(401);
  });

  it("shows the replay's diff for a listed candidate: the same as `toolgate replay --config-dir`", async () => {
    const cookie = await signedIn();
    const answer = await get("/ui/whatif?candidate=no-writes.yaml", { cookie });
    expect(answer.status).toBe(200);
    // What the CLI's code says, computed here directly.
    const loaded = loadConfigDir(dir, { skills: [] });
    const policy = {
      compiled: compilePolicy(loadPolicyFile(join(dir, "no-writes.yaml")).policy!),
      shownPath: "no-writes.yaml",
    };
    const cli = replayLogs(
      [log],
      candidateGates(policy, { config: loaded.config, selection: { skills: [] } }),
    );
    if (!cli.ok) throw new Error(cli.problem);
    const denied = cli.diff.newly_denied.reduce((n, c) => n + c.count, 0);
    expect(denied).toBe(10);
    expect(answer.body).toContain(`<strong id="count-newly-denied">${denied}</strong>`);
    expect(answer.body).toContain(`<span id="count-unchanged">${cli.diff.unchanged}</span>`);
    expect(answer.body).toMatch(
      /<tr data-tool="write_file" data-principal="ci">[\s\S]*?<td class="count">10<\/td>/,
    );
    expect(answer.body).toContain("<code>E_TOOL_NOT_ALLOWED</code>");
    expect(answer.body).toContain('<span id="count-name-only">0</span>');
  });

  it("refuses a path, .., or an unlisted name with E_DASHBOARD_CANDIDATE, reading nothing", async () => {
    const cookie = await signedIn();
    for (const name of [
      "../secret.yaml",
      join(outside, "secret.yaml"),
      "linked.yaml",
      "policy.yaml",
      "x.yaml",
    ]) {
      const answer = await get(`/ui/whatif?candidate=${encodeURIComponent(name)}`, { cookie });
      expect(answer.status, name).toBe(400);
      expect(answer.body).toContain("E_DASHBOARD_CANDIDATE");
      expect(answer.body).not.toContain('id="whatif-result"');
    }
    // Logged with the name made printable: a newline in it forges no line of the gateway's log.
    await get(`/ui/whatif?candidate=${encodeURIComponent("x.yaml\ntoolgate: forged")}`, { cookie });
    const line = logged.find((l) => l.includes("forged"));
    expect(line).toContain(
      "E_DASHBOARD_CANDIDATE: refused the what-if candidate 'x.yaml\\ntoolgate: forged'",
    );
    expect(line).not.toContain("\n");
  });

  it("a candidate with errors is not replayed: its diagnostics are shown", async () => {
    const cookie = await signedIn();
    const answer = await get("/ui/whatif?candidate=broken.yml", { cookie });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("The candidate cannot be used");
    expect(answer.body).toContain("broken.yml:3");
    expect(answer.body).not.toContain("count-newly-denied");
  });
});

describe("WhatIfRunner", () => {
  const big = join(outside, "big.jsonl");

  it("lets the event loop run between slices of a long replay, and runs one replay at a time", async () => {
    writeLog(big, 3000);
    const runner = new WhatIfRunner(0);
    const listing = listCandidates(dir, join(dir, "policy.yaml"));
    const chosen = chooseCandidate(listing, "no-writes.yaml");
    if (!chosen.ok) throw new Error(chosen.why);
    const request = { dir, selection: { skills: [] }, auditLogs: [big], candidate: chosen };
    let turns = 0;
    let done = false;
    const turn = (): void => {
      turns++;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    const first = runner.run(request);
    expect(await runner.run(request)).toBe("busy");
    const outcome = await first;
    done = true;
    expect(turns).toBeGreaterThan(1);
    expect(outcome).toMatchObject({ kind: "report", candidate: "no-writes.yaml" });
    if (outcome === "busy" || outcome.kind !== "report") throw new Error("no report");
    expect(outcome.diff.newly_denied.reduce((n, c) => n + c.count, 0)).toBe(750);
    // Free again once done.
    expect(await runner.run(request)).toMatchObject({ kind: "report" });
  });
});
