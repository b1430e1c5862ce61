import type { ReceiptSlot } from "../audit/receipt.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { JsonRpcErrorObject, JsonRpcId } from "../engine/rpc/jsonRpc.js";
import { denyResult, requestRefusedError, type ToolResult } from "./answers.js";
import type { PipelineContext } from "./callPipeline.js";
import type { ServerView } from "./serverView.js";

/**
 * What a session records and answers for requests that are no decision about a tool's call: a limit that
 * refuses a request, a request that could not be counted, a name no server has, a request refused for its
 * protocol form, a modern retry whose state was refused. Each is one audit record (and a `--verbose` line);
 * the surface answers with what is returned. ToolSession offers each under its own name.
 */
export class SessionRecords {
  constructor(
    private readonly limits: ToolGate,
    private readonly pipeline: PipelineContext,
  ) {}

  private get dryRun(): boolean {
    return this.pipeline.dryRun;
  }

  private get recorder(): PipelineContext["recorder"] {
    return this.pipeline.recorder;
  }

  /**
   * A request other than a tool call, against `max_requests_total`: the JSON-RPC error to answer when the
   * limit refuses it, `null` when it may go on (always in a dry run, which records what it would refuse).
   */
  limitRequest(requestId: JsonRpcId, method: string, counters: SessionCounters): JsonRpcErrorObject | null {
    const refusal = this.limits.requestLimit(counters);
    if (refusal === null) return null;
    const decision = this.dryRun ? "would-deny" : "deny";
    this.recorder.request({
      requestId,
      policyDigest: this.limits.policyDigest,
      method,
      decision,
      code: refusal.code,
      rule: refusal.rule,
      reason: refusal.reason,
    });
    this.pipeline.verbose?.(
      `${method}: ${this.dryRun ? "would deny" : "deny"} ${refusal.code} — ${refusal.reason}`,
    );
    return this.dryRun ? null : requestRefusedError(refusal.code, refusal.reason);
  }

  /**
   * A request that could not be counted (the state store is unreachable): recorded, and refused with
   * E_STATE_UNAVAILABLE, since its limit cannot be judged. A tool call gets a tool error result.
   */
  uncountedCall(
    requestId: JsonRpcId,
    server: ServerView | null,
    tool: string,
    reason: string,
    args: unknown,
    receipt?: ReceiptSlot,
  ): ToolResult {
    this.recorder.call({
      requestId,
      policyDigest: this.limits.policyDigest,
      server: server?.name ?? null,
      tool,
      decision: "deny",
      code: "E_STATE_UNAVAILABLE",
      rule: null,
      reason,
      warnings: [],
      args,
      ...(receipt === undefined ? {} : { receipt }),
    });
    this.pipeline.verbose?.(`tools/call ${tool}: deny E_STATE_UNAVAILABLE — ${reason}`);
    return denyResult({
      tool,
      code: "E_STATE_UNAVAILABLE",
      reason,
      violations: [],
      by: "toolgate",
      omitStructuredContent: true,
    });
  }

  /** {@link uncountedCall} for a request other than a call: the JSON-RPC error to answer. */
  uncountedRequest(requestId: JsonRpcId, method: string, reason: string): JsonRpcErrorObject {
    this.recorder.request({
      requestId,
      policyDigest: this.limits.policyDigest,
      method,
      decision: "deny",
      code: "E_STATE_UNAVAILABLE",
      rule: null,
      reason,
    });
    return requestRefusedError("E_STATE_UNAVAILABLE", reason);
  }

  /** A meta search or describe (a request, not a call) against `max_requests_total`; answered as a deny. */
  limitMetaRequest(
    requestId: JsonRpcId,
    server: ServerView,
    via: string,
    args: unknown,
    counters: SessionCounters,
  ): ToolResult | null {
    const refusal = this.limits.requestLimit(counters);
    if (refusal === null) return null;
    this.recorder.call({
      requestId,
      policyDigest: this.limits.policyDigest,
      server: server.name,
      tool: via,
      via,
      decision: this.dryRun ? "would-deny" : "deny",
      code: refusal.code,
      rule: refusal.rule,
      reason: refusal.reason,
      warnings: [],
      args,
    });
    this.pipeline.verbose?.(
      `tools/call ${via}: ${this.dryRun ? "would deny" : "deny"} ${refusal.code} — ${refusal.reason}`,
    );
    if (this.dryRun) return null;
    return denyResult({
      tool: via,
      code: refusal.code,
      reason: refusal.reason,
      violations: [],
      by: "policy",
    });
  }

  /** A name no server of the session has (serve: not `<server>__<tool>`, not a meta tool): recorded, absent. */
  absentName(requestId: JsonRpcId, name: string, reason: string, args: unknown): void {
    this.recorder.call({
      requestId,
      policyDigest: this.limits.policyDigest,
      server: null,
      tool: name,
      decision: "hidden",
      code: null,
      rule: null,
      reason,
      warnings: [],
      args,
    });
    this.pipeline.verbose?.(`tools/call ${name}: hidden — ${reason}`);
  }

  /**
   * A request refused for its form in its protocol era (the modern envelope missing or malformed, an
   * unsupported version, mirrored headers that disagree with the body, a request of the other era):
   * recorded as `E_PROTOCOL`; nothing was decided or forwarded.
   */
  refusedRequest(requestId: JsonRpcId | null, method: string, reason: string): void {
    this.recorder.request({
      requestId,
      policyDigest: this.limits.policyDigest,
      method,
      decision: "deny",
      code: "E_PROTOCOL",
      rule: null,
      reason,
    });
    this.pipeline.verbose?.(`${method}: refused E_PROTOCOL — ${reason}`);
  }

  /**
   * A modern retry whose `requestState` toolgate refused (forged, altered, replayed, expired, or issued for
   * another caller or call): recorded as a deny (`E_REQUEST_STATE`); nothing is forwarded.
   */
  refusedRetry(requestId: JsonRpcId, server: ServerView, tool: string, reason: string, args: unknown): void {
    this.recorder.call({
      requestId,
      policyDigest: server.gate.policyDigest,
      server: server.name,
      tool,
      decision: this.dryRun ? "would-deny" : "deny",
      code: "E_REQUEST_STATE",
      rule: null,
      reason,
      warnings: [],
      args,
    });
    this.pipeline.verbose?.(`tools/call ${tool}: deny E_REQUEST_STATE — ${reason}`);
  }
}
