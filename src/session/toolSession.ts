import type { HiddenTool } from "../audit/events.js";
import { auditRule } from "../audit/events.js";
import type { ReceiptSlot } from "../audit/receipt.js";
import type { AuditSink } from "../audit/sink.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { isJsonObject, type JsonRpcErrorObject, type JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { ToolResult } from "./answers.js";
import { approvalKeyring } from "../engine/controls/approvalSignature.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import { MemoryApprovalClaims, type ApprovalClaims } from "./approvalClaims.js";
import { approvalHelp, type ApprovalWays } from "./approvalHelp.js";
import { AuditRecorder, type AuditIdentity } from "./auditRecorder.js";
import { callInHand, stepFor, type CallStep, type PipelineContext, type ToolCall } from "./callPipeline.js";
import { callVerdict, hiddenByName } from "./callVerdict.js";
import type { ListedTool } from "./catalogPages.js";
import { CatalogWarnings } from "./catalogWarnings.js";
import { describeTool, type DescribeInput, type DescribeStep } from "./describeTool.js";
import { SessionRecords } from "./sessionRecords.js";
import { catalogToolContext, listedToolContext, type ServerView } from "./serverView.js";
import type { CatalogSnapshot } from "./toolCatalog.js";
import type { Settled } from "../state/settled.js";
import type { Principal } from "../engine/model/principal.js";
import { NO_METRICS, type GatewayMetrics } from "../ops/gatewayMetrics.js";

export type { DescribeStep } from "./describeTool.js";

export interface ToolSessionOptions {
  identity: AuditIdentity;
  /** `null`: no audit log. */
  audit: AuditSink | null;
  /** Whose limits apply to requests that are not tool calls (the policy). */
  limits: ToolGate;
  /** Decide and record, but forward everything (the audit log says `would-deny` / `would-hide`). */
  dryRun?: boolean;
  /** `--audit-args`: every call event records the arguments (after the redaction), for `toolgate replay`. */
  auditArguments?: boolean;
  /** One readable line per decision through `log`. */
  verbose?: boolean;
  /** How long a call under `approval_required` waits for the person's answer (for the refusal's reason). */
  approvalTimeoutMs: number;
  /**
   * The keys approval artifacts must be signed with, and where their ids are spent (one store per process).
   * Absent: no keys (no artifact approves; only a person can) and a store of this session's own.
   */
  approvals?: { keys: ApprovalKeyring; claims: ApprovalClaims };
  /** Diagnostics: audit write failures, catalog warnings, decisions when verbose. One line, no newline. */
  log: (line: string) => void;
  /** Who the session serves (an approval artifact bound to a principal approves only its calls). */
  principal?: Principal;
  /**
   * The surface, for the ways to approve an E_APPROVAL_REQUIRED refusal names (approvalHelp.ts); the
   * artifact keys are the session's own. Absent: refusals name none.
   */
  approvalWays?: Omit<ApprovalWays, "artifactKeys">;
  /** How many servers the session fronts (default 1): a deny entry is unmatched once all their catalogs are. */
  servers?: number;
  /**
   * Where requests are counted when the policy sets a limit: the principal's counts across its sessions
   * and the gateway's replicas (serve). Absent: this session's own counts.
   */
  counter?: RequestCounter;
  /** Where decisions and call timings are counted (the gateway's `/metrics`); absent: nowhere. */
  metrics?: GatewayMetrics;
}

/** Counts one request (a tool call also as a call); the counts before it. Rejects when it cannot count. */
export interface RequestCounter {
  count(isToolCall: boolean): Settled<SessionCounters>;
}

/** A filtered list: what the client may see, and the record of what it may not. */
export interface ListOutcome {
  shown: ListedTool[];
  hidden: HiddenTool[];
  /** `false`: the decision could not be recorded, so the list must not be shown (LIST_NOT_RECORDED). */
  recorded: boolean;
}

export interface ListInput {
  requestId: JsonRpcId | null;
  server: ServerView;
  /** The tools as the server listed them (entries without a string name are never shown). */
  tools: readonly unknown[];
  exactSchemaText: (name: string) => string | undefined;
  via?: string;
  /** Tools the surface cannot show whatever the policy says (serve: a name it cannot compose). */
  unshowable?: (name: string) => boolean;
  /** Count the shown tools as shown to the client (default); meta search counts only its hits. */
  markShown?: boolean;
}

/**
 * The call pipeline of one client session, the same for every surface (wrap's frame proxy, serve's router
 * over stdio and HTTP, both protocol eras): it counts requests against the limits, filters lists, decides
 * calls (name stage, call stage, obligations), words and records every decision, and says what the surface
 * does next. It owns what the decisions depend on besides the policy: the counters and the tools this
 * client has been shown. It moves no message itself.
 */
export class ToolSession {
  private readonly counters: SessionCounters = { requests: 0, toolCalls: 0 };
  /** Every tool a list, search or description has shown this client (a drifted one is then explained). */
  private readonly shownTools = new Set<string>();
  private readonly recorder: AuditRecorder;
  private readonly pipeline: PipelineContext;
  private readonly approvalKeys: ApprovalKeyring;
  /** The records of requests that are no decision about a call (sessionRecords.ts). */
  private readonly records: SessionRecords;
  private readonly warnings: CatalogWarnings;
  readonly metrics: GatewayMetrics;

  constructor(private readonly options: ToolSessionOptions) {
    this.metrics = options.metrics ?? NO_METRICS;
    this.recorder = new AuditRecorder(
      options.audit,
      options.identity,
      options.log,
      this.metrics,
      options.auditArguments === true,
    );
    this.approvalKeys = options.approvals?.keys ?? approvalKeyring({});
    this.pipeline = {
      recorder: this.recorder,
      claims: options.approvals?.claims ?? new MemoryApprovalClaims(),
      dryRun: options.dryRun === true,
      approvalTimeoutMs: options.approvalTimeoutMs,
      verbose: options.verbose === true ? options.log : null,
      approvalHelp: null,
    };
    const ways = options.approvalWays;
    if (ways !== undefined) {
      const all: ApprovalWays = { ...ways, artifactKeys: this.approvalKeys.size };
      this.pipeline.approvalHelp = (tool, rule, asked) => approvalHelp(tool, rule, all, asked);
    }
    this.records = new SessionRecords(options.limits, this.pipeline);
    this.warnings = new CatalogWarnings(options.servers ?? 1, options.log);
  }

  get dryRun(): boolean {
    return this.pipeline.dryRun;
  }

  /** The audit log is signed: every answer to a call carries the receipt of its decision (receipt.ts). */
  get receipts(): boolean {
    return this.options.audit?.receipts === true;
  }

  /**
   * Counts one client request (a tool call also as a call); returns the counts before it, which limits
   * judge. Settled at once unless the counts live elsewhere (Redis); rejects (StateUnavailable) when they
   * cannot be had, and the surface refuses the request.
   */
  countRequest(isToolCall: boolean): Settled<SessionCounters> {
    if (this.options.counter !== undefined && this.options.limits.limited !== false) {
      return this.options.counter.count(isToolCall);
    }
    return this.countHere(isToolCall);
  }

  /** This session's own counts (wrap: one client, one session); synchronous. */
  countHere(isToolCall: boolean): SessionCounters {
    const before = { requests: this.counters.requests, toolCalls: this.counters.toolCalls };
    this.counters.requests++;
    if (isToolCall) this.counters.toolCalls++;
    return before;
  }

  /**
   * A request other than a tool call, against `max_requests_total`: the JSON-RPC error to answer when the
   * limit refuses it, `null` when it may go on (always in a dry run, which records what it would refuse).
   */
  limitRequest(requestId: JsonRpcId, method: string, counters: SessionCounters): JsonRpcErrorObject | null {
    return this.records.limitRequest(requestId, method, counters);
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
    return this.records.uncountedCall(requestId, server, tool, reason, args, receipt);
  }

  /** {@link uncountedCall} for a request other than a call: the JSON-RPC error to answer. */
  uncountedRequest(requestId: JsonRpcId, method: string, reason: string): JsonRpcErrorObject {
    return this.records.uncountedRequest(requestId, method, reason);
  }

  /** A meta search or describe (a request, not a call) against `max_requests_total`; answered as a deny. */
  limitMetaRequest(
    requestId: JsonRpcId,
    server: ServerView,
    via: string,
    args: unknown,
    counters: SessionCounters,
  ): ToolResult | null {
    return this.records.limitMetaRequest(requestId, server, via, args, counters);
  }

  /** One list page (or a search's candidates): only the visible tools, every hidden one recorded with why. */
  filterList(input: ListInput): ListOutcome {
    const { server } = input;
    const shown: ListedTool[] = [];
    const hidden: HiddenTool[] = [];
    for (const tool of input.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") {
        // Nothing to decide on: never shown, even in a dry run.
        hidden.push({ tool: "(malformed entry)", code: null, rule: null });
        continue;
      }
      const name = tool.name;
      const verdict = server.gate.visibility(
        tool as ListedTool,
        listedToolContext(server, () => input.exactSchemaText(name)),
      );
      const showable = input.unshowable?.(name) !== true;
      if (showable && (verdict.visible || this.dryRun)) {
        shown.push(tool as ListedTool);
        if (input.markShown !== false) this.shownTools.add(shownKey(server, name));
      }
      if (!verdict.visible || !showable)
        hidden.push({ tool: name, code: verdict.code, rule: auditRule(verdict.rule) });
    }
    const recorded = this.recorder.list({
      requestId: input.requestId,
      policyDigest: server.gate.policyDigest,
      server: server.name,
      decision: this.dryRun ? "would-filter" : "filtered",
      shown: shown.length,
      hidden,
      ...(input.via === undefined ? {} : { via: input.via }),
    });
    if (this.pipeline.verbose !== null) {
      const names = hidden.map((h) => `${h.tool}${h.code === null ? "" : ` ${h.code}`}`).join(", ");
      this.pipeline.verbose(
        `${input.via ?? "tools/list"}${server.name === null ? "" : ` [${server.name}]`}: ${shown.length} shown, ${hidden.length} ${this.dryRun ? "would be hidden" : "hidden"}${names === "" ? "" : ` (${names})`}`,
      );
    }
    return { shown, hidden, recorded };
  }

  /**
   * What this session's client would be shown of a catalog, as one comparable text (the visible tools'
   * definitions as `filterList` shows them, JSON), without recording anything: a change of the server's list
   * is announced to a client only when this differs from what it was shown (another principal's tools are
   * none of its business).
   */
  visibleFingerprint(server: ServerView, catalog: CatalogSnapshot | null): string {
    if (catalog === null) return "";
    const shown: unknown[] = [];
    for (const tool of catalog.tools.values()) {
      const verdict = server.gate.visibility(
        tool,
        listedToolContext(server, () => catalog.exactSchemaText(tool.name)),
      );
      if (verdict.visible || this.dryRun) shown.push(tool);
    }
    return JSON.stringify(shown);
  }

  /** Tools a meta search returned: shown to the client from now on. */
  markShown(server: ServerView, names: readonly string[]): void {
    for (const name of names) this.shownTools.add(shownKey(server, name));
  }

  /** The whole pipeline for one call: what the surface does next. */
  decideCall(call: ToolCall): Settled<CallStep> {
    const hand = callInHand(call);
    if (call.catalog === null) {
      const byName = hiddenByName(call.server.gate, call.tool);
      if (byName === null) return { kind: "needs-catalog" };
      return stepFor(this.pipeline, hand, byName);
    }
    const catalog = call.catalog;
    const verdict = callVerdict({
      gate: call.server.gate,
      tool: call.tool,
      args: hand.args,
      lookup: hand.lookup,
      catalog,
      toolContext: catalog.ok
        ? catalogToolContext(call.server, catalog.snapshot, call.tool)
        : listedToolContext(call.server, () => undefined),
      counters: call.counters,
      shownBefore: this.shownTools.has(shownKey(call.server, call.tool)),
      cannotAsk: call.cannotAsk,
      approvalKeys: this.approvalKeys,
      ...(this.options.principal === undefined ? {} : { principal: this.options.principal }),
      ...(call.server.realpath === undefined ? {} : { realpath: call.server.realpath }),
    });
    return stepFor(this.pipeline, hand, verdict);
  }

  /** A name no server of the session has (serve: not `<server>__<tool>`, not a meta tool): recorded, absent. */
  absentName(requestId: JsonRpcId, name: string, reason: string, args: unknown): void {
    this.records.absentName(requestId, name, reason, args);
  }

  /**
   * A request refused for its form in its protocol era (the modern envelope missing or malformed, an
   * unsupported version, mirrored headers that disagree with the body, a request of the other era):
   * recorded as `E_PROTOCOL`; nothing was decided or forwarded.
   */
  refusedRequest(requestId: JsonRpcId | null, method: string, reason: string): void {
    this.records.refusedRequest(requestId, method, reason);
  }

  /**
   * A modern retry whose `requestState` toolgate refused (forged, altered, replayed, expired, or issued for
   * another caller or call): recorded as a deny (`E_REQUEST_STATE`); nothing is forwarded.
   */
  refusedRetry(requestId: JsonRpcId, server: ServerView, tool: string, reason: string, args: unknown): void {
    this.records.refusedRetry(requestId, server, tool, reason, args);
  }

  /** Meta describe: the name stage alone; a visible tool's definition is then shown to the client. */
  describe(input: DescribeInput): DescribeStep {
    return describeTool(this.pipeline, input, () => this.shownTools.add(shownKey(input.server, input.tool)));
  }

  /**
   * Each catalog a server's connection fetched: the warnings about it (dead whitelist patterns, pins left
   * without their tool, tools withheld for drift), said once for as long as they stay the same.
   */
  catalogFetched(server: ServerView, snapshot: CatalogSnapshot): void {
    this.warnings.catalogFetched(server, snapshot);
  }
}

function shownKey(server: ServerView, tool: string): string {
  return `${server.name ?? ""}\u0000${tool}`;
}

/** Why a request could not be counted, for its refusal. */
export function uncountedReason(error: unknown): string {
  return `its limits cannot be judged now: ${error instanceof Error ? error.message : String(error)}`;
}
