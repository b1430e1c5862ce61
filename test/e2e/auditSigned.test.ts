// A signed audit log a third party can verify: serve over HTTP in front of server-everything with a signing
// key, checkpoints published through --checkpoint-publish, receipts in the answers of the v1 client
// (2025-11-25) and the v2 client pinned to 2026-07-28. `audit verify --key` passes on the log as written;
// lines deleted from the end after a published checkpoint, the last checkpoint removed, a checkpoint forged
// with another key, and a receipt of a call cut from the log are each found with their own code. The v2
// client's receipts are proven with the library's verifyReceipt, from the built package.
import { spawnSync } from "node:child_process";
import { createPrivateKey, sign } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import canonicalize from "canonicalize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { configDir, mcpJson } from "./configDirHelpers.js";
import { CLI, connect, EVERYTHING_SERVER, NODE, ROOT, tempDir, wrapCommand, writePolicy } from "./helpers.js";
import { httpClient, serveHttp, TOKEN, type HttpServe } from "./serveHelpers.js";

interface Receipt {
  log_id: string;
  seq: number;
  hash: string;
  decision: string;
}
type Verdict = { ok: true; line: number } | { ok: false; code: string; message: string };
const { verifyReceipt } = (await import(join(ROOT, "dist/index.js"))) as {
  verifyReceipt(check: { receipt: unknown; keys: string[]; logs: string[] }): Verdict;
};

const POLICY = `version: "2.0"
tools:
  deny: ["get-env"]
  redact_args: ["echo"]
  redact_args_contract:
    redaction_target: args
    redaction_mode: mask
    redaction_scope: all_fields
schemas:
  echo:
    type: object
    properties: { message: { type: string, maxLength: 20 } }
enforcement: { unconstrained_tools: allow }
`;
const SECRET = "SECRET-sauce-42";

const dir = tempDir("tg-signed-e2e-");
const log = join(dir, "audit.jsonl");
const published = join(dir, "published.jsonl");
const key = join(dir, "audit.pem");
const pub = join(dir, "audit.pub.pem");
const other = join(dir, "other.pem");

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(NODE, [CLI, ...args], { cwd: ROOT, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const receiptOf = (result: unknown): Receipt =>
  (result as { _meta: Record<string, Receipt> })._meta["io.toolgate/receipt"]!;
const lines = (path: string): string[] => readFileSync(path, "utf8").split("\n").slice(0, -1);
const write = (name: string, content: string[]): string => {
  const path = join(dir, name);
  writeFileSync(path, content.map((l) => l + "\n").join(""));
  return path;
};

const receipts: Record<string, Receipt> = {};
const answers: Record<string, unknown> = {};
let serve: HttpServe | null = null;
/** The id of the key a forger signs with. */
let otherId = "";

beforeAll(async () => {
  expect(cli(["audit", "keygen", "--private", key, "--public", pub]).status).toBe(0);
  const made = cli(["audit", "keygen", "--private", other, "--public", join(dir, "other.pub.pem")]);
  expect(made.status).toBe(0);
  otherId = /key id ([0-9a-f]{64})/.exec(made.stderr)![1]!;
  const config = configDir({
    "mcp.json": mcpJson({ ev: { command: NODE, args: [EVERYTHING_SERVER] } }),
    "config.yaml": "enabled_mcp_servers: all\n",
  });
  const policy = writePolicy(dir, POLICY);
  serve = await serveHttp(config, [
    "--token",
    TOKEN,
    "--policy",
    policy,
    "--audit-log",
    log,
    "--audit-signing-key",
    key,
    "--checkpoint-every",
    "4",
    "--checkpoint-publish",
    `cat >> '${published}'`,
  ]);
  // The 2025-11-25 era: the v1 SDK client.
  const legacy = await httpClient(serve.url, TOKEN);
  await legacy.client.listTools();
  answers.secret = await legacy.client.callTool({ name: "ev__echo", arguments: { message: SECRET } });
  answers.long = await legacy.client.callTool({ name: "ev__echo", arguments: { message: "x".repeat(30) } });
  answers.hidden = await legacy.client.callTool({ name: "ev__get-env", arguments: {} });
  await legacy.client.close();
  // The 2026-07-28 era: the v2 SDK client.
  const modern = new ModernClient(
    { name: "signed-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(
    new StreamableHTTPClientTransport(new URL(serve.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  for (const n of [1, 2, 3, 4, 5]) {
    answers[`modern${n}`] = await modern.callTool({ name: "ev__echo", arguments: { message: `m${n}` } });
  }
  await modern.close();
  for (const [name, answer] of Object.entries(answers)) receipts[name] = receiptOf(answer);
  // A clean stop: the last checkpoint is written and published before the exit.
  await serve.stop();
  serve = null;
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

describe("serve with --audit-signing-key", () => {
  it("every answer carries a receipt of four fields, and none holds what redaction hides", () => {
    for (const receipt of Object.values(receipts)) {
      expect(Object.keys(receipt).sort()).toEqual(["decision", "hash", "log_id", "seq"]);
    }
    expect(receipts.secret).toMatchObject({ decision: "allow" });
    expect(receipts.long).toMatchObject({ decision: "deny" });
    expect(receipts.hidden).toMatchObject({ decision: "hidden" });
    expect(receipts.modern1).toMatchObject({ decision: "allow" });
    expect(JSON.stringify((answers.secret as { _meta: unknown })._meta)).not.toContain(SECRET);
    // The receipt's hash is the hash of the line the chain holds, whose arguments are masked.
    const line = lines(log)[receipts.secret!.seq - 1]!;
    expect(line).not.toContain(SECRET);
    expect(JSON.parse(line)).toMatchObject({ args_redacted: { message: "***" } });
  });

  it("writes checkpoints every 4 events and at the stop, each published, and verify --key passes", () => {
    const events = lines(log).map((l) => JSON.parse(l) as { event: string; trigger?: string });
    const checkpoints = events.filter((e) => e.event === "checkpoint");
    expect(checkpoints.map((c) => c.trigger)).toEqual(expect.arrayContaining(["events", "shutdown"]));
    expect(events.at(-1)).toMatchObject({ event: "checkpoint", trigger: "shutdown" });
    expect(lines(published)).toEqual(lines(log).filter((l) => l.includes('"event":"checkpoint"')));
    const run = cli([
      "audit",
      "verify",
      "--key",
      pub,
      "--expect-checkpoint",
      write("last.json", lines(published).slice(-1)),
      log,
    ]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/OK, \d+ events, every link holds/);
    expect(run.stdout).toContain(`signed: ${checkpoints.length} checkpoints`);
    expect(run.stdout).toContain("0 events after it unsigned");
    expect(run.stdout).toContain("in the log");
  });

  it("the v2 client's receipts are proven with the library helper, and by `audit receipt`", () => {
    const pem = readFileSync(pub, "utf8");
    for (const name of ["modern1", "modern5", "secret", "long", "hidden"]) {
      expect(verifyReceipt({ receipt: receipts[name], keys: [pem], logs: [log] }), name).toMatchObject({
        ok: true,
      });
    }
    const answer = join(dir, "answer.json");
    writeFileSync(answer, JSON.stringify(answers.modern5));
    const run = cli(["audit", "receipt", answer, "--key", pub, log]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`PROVEN: seq ${receipts.modern5!.seq} (tools/call echo: allow)`);
  });
});

describe("tampering a verifier finds, each with its own message", () => {
  const findings: string[] = [];
  afterAll(() => {
    expect(new Set(findings).size).toBe(findings.length);
  });

  it("lines deleted from the end after a published checkpoint", () => {
    const checkpoint = write("cp.json", lines(published).slice(-1));
    const seq = (JSON.parse(lines(published).at(-1)!) as { seq: number }).seq;
    const cut = write("cut.jsonl", lines(log).slice(0, seq - 4));
    // The log alone verifies: only the published checkpoint tells.
    expect(cli(["audit", "verify", "--key", pub, cut]).status).toBe(0);
    const run = cli(["audit", "verify", "--key", pub, "--expect-checkpoint", checkpoint, cut]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/BROKEN \(truncated after checkpoint seq \d+\) E_AUDIT_TRUNCATED/);
    expect(run.stdout).toContain(`were removed from its end`);
    findings.push(run.stdout.split("\n")[0]!.replace(/^\S+ /, ""));
  });

  it("the last checkpoint removed", () => {
    const checkpoint = write("cp.json", lines(published).slice(-1));
    const removed = write("removed.jsonl", lines(log).slice(0, -1));
    const alone = cli(["audit", "verify", "--key", pub, removed]);
    expect(alone.status).toBe(0);
    expect(alone.stdout).toMatch(/[1-9]\d* events? after it unsigned/);
    const run = cli(["audit", "verify", "--key", pub, "--expect-checkpoint", checkpoint, removed]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/BROKEN \(last checkpoint removed: seq \d+\) E_CHECKPOINT_MISSING/);
    findings.push(run.stdout.split("\n")[0]!.replace(/^\S+ /, ""));
  });

  it("a checkpoint forged with another key", () => {
    const all = lines(log);
    const last = JSON.parse(all.at(-1)!) as { checkpoint: Record<string, unknown>; signature: string };
    const forger = createPrivateKey(readFileSync(other, "utf8"));
    last.checkpoint.key_id = otherId;
    last.signature = sign(
      null,
      Buffer.from("toolgate audit checkpoint v1\n" + canonicalize(last.checkpoint)),
      forger,
    ).toString("base64");
    const forged = write("forged.jsonl", [...all.slice(0, -1), JSON.stringify(last)]);
    const run = cli(["audit", "verify", "--key", pub, forged]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/BROKEN at line \d+ \(checkpoint signed by another key\) E_CHECKPOINT_KEY/);
    expect(run.stdout).toContain(otherId);
    findings.push(run.stdout.split("\n")[0]!.replace(/^\S+ /, ""));
  });

  it("a receipt for a call that was cut from the log", () => {
    const receipt = receipts.modern5!;
    const cut = write("receipt-cut.jsonl", lines(log).slice(0, receipt.seq - 1));
    const file = join(dir, "receipt.json");
    writeFileSync(file, JSON.stringify(receipt));
    const run = cli(["audit", "receipt", file, "--key", pub, cut]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/REFUSED E_RECEIPT_CUT/);
    expect(run.stdout).toContain(`the receipt's event (seq ${receipt.seq}) is not in the log`);
    const verdict = verifyReceipt({ receipt, keys: [readFileSync(pub, "utf8")], logs: [cut] });
    expect(verdict).toMatchObject({ ok: false, code: "E_RECEIPT_CUT" });
    findings.push(run.stdout.split("\n")[0]!.replace(/^\S+ /, ""));
  });
});

describe("wrap with --audit-signing-key", () => {
  it("answers carry receipts and the log verifies with the key", async () => {
    const wrapLog = join(dir, "wrap.jsonl");
    const wrapped = await connect(
      wrapCommand(
        ["--audit-log", wrapLog, "--audit-signing-key", key, "--label", "w"],
        [NODE, EVERYTHING_SERVER],
      ),
    );
    let receipt: Receipt;
    try {
      receipt = receiptOf(await wrapped.client.callTool({ name: "echo", arguments: { message: "hi" } }));
    } finally {
      await wrapped.close();
    }
    expect(receipt).toMatchObject({ seq: 1, decision: "allow" });
    // Two logs (as of two replicas): each named with its state.
    const both = cli(["audit", "verify", "--key", pub, wrapLog, log]);
    expect(both.status).toBe(0);
    expect(both.stdout).toContain(`${wrapLog}: OK, 2 events`);
    expect(both.stdout).toContain(`${log}: OK,`);
    expect(verifyReceipt({ receipt, keys: [readFileSync(pub, "utf8")], logs: [wrapLog, log] })).toMatchObject(
      { ok: true },
    );
  });
});
