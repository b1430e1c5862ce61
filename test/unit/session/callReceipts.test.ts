// Receipts through the one call flow (runCall), the way every surface answers: the server's result, a
// refusal, a hidden tool's answer, a server that cannot be had, a count that cannot be had — each carries
// the receipt of the decision recorded for it, and only its four fields. Without a signed log, none.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineHash } from "../../../src/audit/chain.js";
import { JsonlFileSink } from "../../../src/audit/jsonlFileSink.js";
import { RECEIPT_META_KEY } from "../../../src/audit/receipt.js";
import type { AuditSink } from "../../../src/audit/sink.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { RequestStateCodec } from "../../../src/engine/protocol/requestState.js";
import { MemoryApprovalClaims } from "../../../src/session/approvalClaims.js";
import { ApprovalRounds } from "../../../src/session/approvalRounds.js";
import type { AnswerShape, CallPort } from "../../../src/session/callPort.js";
import { runCall } from "../../../src/session/runCall.js";
import type { ServerView } from "../../../src/session/serverView.js";
import { ToolSession } from "../../../src/session/toolSession.js";
import { signedSink, signer } from "../audit/signedLogHelpers.js";

const POLICY = `version: "2.0"
tools:
  deny: ["secret_*"]
  approval_required: ["deploy"]
  redact_args: ["write"]
schemas:
  write:
    type: object
    properties: { content: { type: string, maxLength: 8 } }
enforcement:
  unconstrained_tools: allow
`;

/** As a surface does: the result through the call's shape when it has one. */
const shape = (answered: AnswerShape | undefined, result: Record<string, unknown>) =>
  answered === undefined ? result : answered(result);

type Outcome = { how: string; result?: Record<string, unknown> };

function world(audit: AuditSink) {
  const { policy } = loadPolicyText("p.yaml", POLICY);
  const gate = createPolicyGate(compilePolicy(policy!));
  const session = new ToolSession({
    identity: { session: "s" },
    audit,
    limits: gate,
    approvalTimeoutMs: 1000,
    log: () => {},
  });
  const server: ServerView = { gate, name: null, serverId: () => undefined };
  const tools = ["read", "write", "deploy", "secret_key"].map((name) => ({
    name,
    inputSchema: { type: "object" },
  }));
  const catalog = {
    ok: true as const,
    snapshot: { tools: new Map(tools.map((t) => [t.name, t])), exactSchemaText: () => undefined },
  };
  const rounds = new ApprovalRounds({
    codec: RequestStateCodec.ephemeral(),
    claims: new MemoryApprovalClaims(),
    principal: "p",
    ttlMs: 1000,
  });
  let id = 0;
  const call = (
    tool: string,
    args: Record<string, unknown>,
    era: "legacy" | "modern" = "legacy",
    server_: "up" | "down" | "uncounted" = "up",
  ) =>
    new Promise<Outcome>((resolve) => {
      const port: CallPort = {
        era,
        asksOutOfBand: false,
        cannotAsk: null,
        resolve: (params) => ({
          server,
          tool,
          params,
          definitionShown: false,
          before: () => catalog,
          fetchCatalog: null,
          absent: (answered) =>
            resolve({ how: "absent", result: shape(answered, { content: [], isError: true }) }),
        }),
        uncounted: (reason, receipt) => session.uncountedCall(id, server, tool, reason, args, receipt),
        forward: (_params, _approved, failed, answered) => {
          if (server_ === "down") resolve({ how: "failed", result: failed("connection refused") });
          else
            resolve({
              how: "forward",
              result: shape(answered, { content: [{ type: "text", text: "done" }] }),
            });
        },
        ask: () => Promise.resolve({ approved: true as const }),
        answer: (result) => resolve({ how: "answer", result }),
        error: () => resolve({ how: "error" }),
        withdrawn: () => resolve({ how: "withdrawn" }),
        failed: () => resolve({ how: "crashed" }),
      };
      const counting =
        server_ === "uncounted"
          ? Object.assign(session, { countRequest: () => Promise.reject(new Error("redis down")) })
          : session;
      void runCall(
        counting,
        rounds,
        { requestId: ++id, params: { name: tool, arguments: args }, calledAs: tool, args },
        port,
      );
    });
  return { call };
}

const receiptOf = (o: Outcome) =>
  (o.result?._meta as Record<string, unknown> | undefined)?.[RECEIPT_META_KEY];

describe("receipts through runCall", () => {
  it("each answer carries the receipt of the decision recorded for it, four fields, nothing redaction hides", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tg-call-receipts-")), "audit.jsonl");
    const w = world(signedSink(path, signer()));
    const outcomes = [
      await w.call("read", {}),
      await w.call("write", { content: "PASSWORD1" }),
      await w.call("write", { content: "hunter2" }),
      await w.call("secret_key", {}),
      await w.call("read", {}, "legacy", "down"),
      await w.call("deploy", {}, "legacy"),
      await w.call("read", {}, "legacy", "uncounted"),
    ];
    expect(outcomes.map((o) => o.how)).toEqual([
      "forward",
      "answer",
      "forward",
      "absent",
      "failed",
      "forward",
      "answer",
    ]);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    const events = lines.map((l) => JSON.parse(l) as { seq: number; decision: string; code: string | null });
    const receipts = outcomes.map(receiptOf) as Array<{
      seq: number;
      hash: string;
      decision: string;
      log_id: string;
    }>;
    expect(receipts.map((r) => r.decision)).toEqual([
      "allow",
      "deny",
      "allow",
      "hidden",
      "deny",
      "allow",
      "deny",
    ]);
    for (const r of receipts) {
      expect(Object.keys(r).sort()).toEqual(["decision", "hash", "log_id", "seq"]);
      expect(r.hash).toBe(lineHash(lines[r.seq - 1]!));
      expect(events[r.seq - 1]!.decision).toBe(r.decision);
      expect(r.log_id).toBe(lineHash(lines[0]!));
    }
    // The server that could not be had: the receipt is the refusal's, recorded after the allow.
    expect(events[receipts[4]!.seq - 1]!.code).toBe("E_UPSTREAM_UNAVAILABLE");
    expect(events[receipts[6]!.seq - 1]!.code).toBe("E_STATE_UNAVAILABLE");
    expect(JSON.stringify(outcomes.map((o) => o.result))).not.toMatch(/PASSWORD1|hunter2/);
  });

  it("the modern era's question is no decision yet: no receipt; without a signed log, no receipts at all", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tg-call-receipts-")), "audit.jsonl");
    const signed = world(signedSink(path, signer()));
    const question = await signed.call("deploy", {}, "modern");
    expect(question.how).toBe("answer");
    expect(receiptOf(question)).toBeUndefined();
    const plain = world(
      new JsonlFileSink(join(mkdtempSync(join(tmpdir(), "tg-call-receipts-")), "plain.jsonl")),
    );
    for (const o of [await plain.call("read", {}), await plain.call("secret_key", {})])
      expect(receiptOf(o)).toBeUndefined();
  });
});
