// Receipts' cost per call (issue 25: at most 5 µs): one allowed call through the call flow (runCall, the
// session's decision, the audit event written synchronously to a JSONL file, the server's result handed
// back), with a signed log and its receipt added to the result, beside the same call with today's audit
// log and no receipt, in the same run. Checkpoints are signed off the call's path (a later turn of the
// event loop), so they are measured on their own: one checkpoint, signed and written, per N events.
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointKeyId, type CheckpointSigner } from "../src/audit/checkpoint.js";
import type { ConfigReloadEvent } from "../src/audit/events.js";
import { CheckpointingSink } from "../src/audit/checkpointSink.js";
import { JsonlFileSink } from "../src/audit/jsonlFileSink.js";
import type { AuditSink } from "../src/audit/sink.js";
import { loadPolicyText } from "../src/config/policyLoader.js";
import { compilePolicy } from "../src/engine/policy/compile.js";
import { createPolicyGate } from "../src/engine/policy/policyGate.js";
import { RequestStateCodec } from "../src/engine/protocol/requestState.js";
import { MemoryApprovalClaims } from "../src/session/approvalClaims.js";
import { ApprovalRounds } from "../src/session/approvalRounds.js";
import type { CallPort } from "../src/session/callPort.js";
import { runCall } from "../src/session/runCall.js";
import type { ServerView } from "../src/session/serverView.js";
import { ToolSession } from "../src/session/toolSession.js";
import { measure, printTable, type Row, type Stats } from "./measure.js";

const POLICY = 'version: "2.0"\ntools:\n  allow: ["echo"]\nenforcement:\n  unconstrained_tools: allow\n';
const SAMPLES = 100_000;

function callFlow(audit: AuditSink): () => void {
  const { policy } = loadPolicyText("bench.yaml", POLICY);
  const gate = createPolicyGate(compilePolicy(policy!));
  const session = new ToolSession({
    identity: { session: "bench" },
    audit,
    limits: gate,
    approvalTimeoutMs: 1000,
    log: (line) => console.error(line),
  });
  const server: ServerView = { gate, name: null, serverId: () => undefined };
  const tool = { name: "echo", inputSchema: { type: "object" } };
  const catalog = {
    ok: true as const,
    snapshot: { tools: new Map([[tool.name, tool]]), exactSchemaText: () => undefined },
  };
  const rounds = new ApprovalRounds({
    codec: RequestStateCodec.ephemeral(),
    claims: new MemoryApprovalClaims(),
    principal: "bench",
    ttlMs: 1000,
  });
  const serverResult = { content: [{ type: "text", text: "Echo: hi" }] };
  let delivered: unknown = null;
  let id = 0;
  const port: CallPort = {
    era: "legacy",
    asksOutOfBand: false,
    cannotAsk: "bench",
    resolve: (params) => ({
      server,
      tool: "echo",
      params,
      definitionShown: true,
      before: () => catalog,
      fetchCatalog: null,
      absent: () => {},
    }),
    uncounted: () => ({}),
    // The server answers at once: its result goes to the client as the surface would send it.
    forward: (_params, _approved, _failed, answered) => {
      delivered = answered === undefined ? serverResult : answered(serverResult);
    },
    ask: () => Promise.reject(new Error("not asked")),
    answer: (result) => (delivered = result),
    error: () => {},
    withdrawn: () => {},
    failed: (error) => console.error(error),
  };
  return () => {
    const args = { message: "hi" };
    void runCall(
      session,
      rounds,
      { requestId: ++id, params: { name: "echo", arguments: args }, calledAs: "echo", args },
      port,
    );
    if (delivered === null) throw new Error("the call was not answered");
  };
}

/** A signed log whose checkpoints are never due in the measured loop (only after 10^9 events). */
function signedSink(path: string, signer: CheckpointSigner): CheckpointingSink {
  return new CheckpointingSink(new JsonlFileSink(path, { checkpoints: true }), {
    signer,
    every: 1_000_000_000,
    intervalMs: 3_600_000,
    session: "bench",
    publisher: null,
    log: (line) => console.error(line),
  });
}

/** The lower p50 of two interleaved runs each: the machine's drift hits both sides alike. */
function interleaved(a: () => void, b: () => void): [Stats, Stats] {
  const runs: [Stats[], Stats[]] = [[], []];
  for (let round = 0; round < 2; round++) {
    runs[0].push(measure(a, SAMPLES));
    runs[1].push(measure(b, SAMPLES));
  }
  const best = (s: Stats[]): Stats => s.reduce((x, y) => (y.p50us < x.p50us ? y : x));
  return [best(runs[0]), best(runs[1])];
}

export function runReceiptBench(): { rows: Row[]; extraUs: number; checkpointUs: number } {
  const dir = mkdtempSync(join(tmpdir(), "tg-bench-receipts-"));
  try {
    const pair = generateKeyPairSync("ed25519");
    const signer = { privateKey: pair.privateKey, keyId: checkpointKeyId(pair.publicKey) };
    const plain = new JsonlFileSink(join(dir, "plain.jsonl"));
    // No checkpoint falls inside the measured loop: the call's own cost.
    const signed = signedSink(join(dir, "signed.jsonl"), signer);
    const [withReceipts, without] = interleaved(callFlow(signed), callFlow(plain));
    // One checkpoint: sign the head and append the line (what every --checkpoint-every events cost, off
    // the call's path), beside writing the event alone.
    const event: ConfigReloadEvent = {
      time: new Date().toISOString(),
      session: "bench",
      policy_digest: null,
      request_id: null,
      event: "config_reload",
      result: "applied",
      trigger: "bench",
      old_policy_digest: null,
      new_policy_digest: null,
      code: null,
    };
    const cp = signedSink(join(dir, "cp.jsonl"), signer);
    const eventOnly = new JsonlFileSink(join(dir, "events.jsonl"));
    const [withCheckpoint, eventAlone] = [
      measure(() => {
        cp.write(event);
        cp.checkpointNow("events");
      }, 5_000),
      measure(() => eventOnly.write(event), 5_000),
    ];
    cp.close();
    eventOnly.close();
    plain.close();
    signed.close();
    return {
      rows: [
        {
          name: "(c) allowed call, audit log + receipt",
          result: withReceipts,
          baselineName: "audit log, no receipt",
          baseline: without,
        },
        {
          name: "(d) audit event + checkpoint (sign, append)",
          result: withCheckpoint,
          baselineName: "audit event alone",
          baseline: eventAlone,
        },
      ],
      extraUs: withReceipts.p50us - without.p50us,
      checkpointUs: withCheckpoint.p50us - eventAlone.p50us,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printReceiptBench(): void {
  const { rows, extraUs, checkpointUs } = runReceiptBench();
  printTable("audit receipts (in-process, one call through the call flow)", rows);
  console.log(`receipt cost per call: ${extraUs.toFixed(2)} µs at p50 (aim: at most 5 µs)`);
  console.log(`one checkpoint (sign + append), off the call's path: ${checkpointUs.toFixed(1)} µs at p50`);
}

// Run directly (node dist/bench/receipts.js) rather than bundled into run.js.
if (/receipts\.[jt]s$/.test(process.argv[1] ?? "")) printReceiptBench();
