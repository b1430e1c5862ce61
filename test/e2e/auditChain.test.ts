// toolgate wrap writes a hash-chained audit log; toolgate audit verify checks it and points at tampering.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, connect, EVERYTHING_SERVER, NODE, ROOT, tempDir, wrapCommand, writePolicy } from "./helpers.js";

const POLICY = `version: "2.0"
name: audit-e2e
tools:
  deny: ["get-env"]
enforcement:
  unconstrained_tools: allow
`;

function verify(
  file: string,
  format: "text" | "json" = "text",
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(NODE, [CLI, "audit", "verify", "--format", format, file], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** One wrapped session: list, three echo calls, one call to a denied tool. */
async function session(policy: string, auditLog: string): Promise<void> {
  const wrapped = await connect(
    wrapCommand(["--policy", policy, "--audit-log", auditLog, "--label", "e2e"], [NODE, EVERYTHING_SERVER]),
  );
  try {
    await wrapped.client.listTools();
    for (const message of ["one", "two", "three"]) {
      await wrapped.client.callTool({ name: "echo", arguments: { message } });
    }
    await wrapped.client.callTool({ name: "get-env", arguments: {} });
  } finally {
    await wrapped.close();
  }
}

let dir: string;
let policy: string;
let auditLog: string;

beforeAll(async () => {
  dir = tempDir("tg-audit-e2e-");
  policy = writePolicy(dir, POLICY);
  auditLog = join(dir, "audit.jsonl");
  await session(policy, auditLog);
});

afterAll(() => {});

const lines = (): string[] => readFileSync(auditLog, "utf8").split("\n").slice(0, -1);

describe("toolgate wrap --audit-log writes a chain that audit verify accepts", () => {
  it("every event carries seq, prev and the policy digest", () => {
    const events = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const kinds = new Set(events.map((e) => `${String(e.event)}:${String(e.decision)}`));
    expect(kinds).toEqual(new Set(["tools/list:filtered", "tools/call:allow", "tools/call:hidden"]));
    for (const e of events) expect(e.policy_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("verify: OK with the count, exit 0 (text and json)", () => {
    const n = lines().length;
    const text = verify(auditLog);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`OK, ${n} events`);
    const json = verify(auditLog, "json");
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, events: n, last_seq: n });
  });

  it("a second run appends and continues the chain", async () => {
    const before = lines().length;
    await session(policy, auditLog);
    const events = lines().map((l) => JSON.parse(l) as { seq: number });
    expect(events.length).toBeGreaterThan(before);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(verify(auditLog).status).toBe(0);
  });

  it("an edited line is reported by number; exit 1", () => {
    const original = lines();
    const edited = [...original];
    const target = edited.findIndex((l) => l.includes('"decision":"hidden"'));
    expect(target).toBeGreaterThan(0);
    expect(target).toBeLessThan(edited.length - 1);
    edited[target] = edited[target]!.replace('"decision":"hidden"', '"decision":"allow"');
    const copy = join(dir, "edited.jsonl");
    writeFileSync(copy, edited.map((l) => l + "\n").join(""));
    const text = verify(copy);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain(`BROKEN at line ${target + 1} (edited)`);
    const json = verify(copy, "json");
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      events: target,
      break: { kind: "edited", line: target + 1, detected_at: target + 2 },
    });
  });

  it("a deleted line is reported as missing; exit 1", () => {
    const original = lines();
    const copy = join(dir, "deleted.jsonl");
    writeFileSync(
      copy,
      original
        .filter((_, i) => i !== 2)
        .map((l) => l + "\n")
        .join(""),
    );
    const json = verify(copy, "json");
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ break: { kind: "deleted", line: 3, missing: [3, 3] } });
  });

  it("wrap refuses to extend a log whose last line was cut short (exit 2, nothing started)", () => {
    const copy = join(dir, "cut.jsonl");
    const text = readFileSync(auditLog, "utf8");
    writeFileSync(copy, text.slice(0, -10));
    const run = spawnSync(
      NODE,
      [CLI, "wrap", "--policy", policy, "--audit-log", copy, "--", NODE, EVERYTHING_SERVER],
      { cwd: ROOT, encoding: "utf8", input: "" },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("E_AUDIT_CHAIN");
    expect(readFileSync(copy, "utf8")).toBe(text.slice(0, -10));
    expect(verify(copy).status).toBe(1);
  });

  it("an unreadable file: exit 2", () => {
    const run = verify(join(dir, "missing.jsonl"));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("E_AUDIT_READ");
  });
});
