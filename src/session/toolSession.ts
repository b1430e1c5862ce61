import type { CallOutcome, HiddenTool } from "../audit/events.js";
import { auditRule } from "../audit/events.js";
import type { AuditSink } from "../audit/sink.js";
import type { Rule, SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { diagnosticAt, formatDiagnostic } from "../engine/model/diagnostics.js";
import type { PatternEntry } from "../engine/model/policy.js";
import { isJsonObject, type JsonRpcErrorObject, type JsonRpcId } from "../engine/rpc/jsonRpc.js";
import { denyResult, requestRefusedError, type ToolResult } from "./answers.js";
import { approvalKeyring } from "../engine/controls/approvalSignature.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import { MemoryApprovalClaims, type ApprovalClaims } from "./approvalClaims.js";
import { approvalHelp, type ApprovalWays } from "./approvalHelp.js";
import { AuditRecorder, type AuditIdentity } from "./auditRecorder.js";
import { callInHand, stepFor, type CallStep, type PipelineContext, type ToolCall } from "./callPipeline.js";
import { callVerdict, hiddenByName } from "./callVerdict.js";
import type { ListedTool } from "./catalogPages.js";
import { catalogToolContext, listedToolContext, type ServerView } from "./serverView.js";
import type { CatalogSnapshot, CatalogState } from "./toolCatalog.js";
import type { Settled } from "../state/settled.js";
import type { Principal } from "../engine/model/principal.js";

export interface ToolSessionOptions {
  identity: AuditIdentity;
  /** `null`: no audit log. */
  audit: AuditSink | null;
  /** Whose limits apply to requests that are not tool calls (the policy). */
  limits: ToolGate;
  /** Decide and record, but forward everything (the audit log says `would-deny` / `would-hide`). */
  dryRun?: boolean;
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

export type DescribeStep =
  | { kind: "described"; tool: ListedTool }
  | { kind: "deny"; result: ToolResult }
  | { kind: "absent" }
  | { kind: "needs-catalog" };

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
  /** Per server, the catalog warnings last logged (each change is said once). */
  private readonly saidWarnings = new Map<ServerView, string>();
  /** Per server, the tools.deny entries its last catalog left unmatched; and the warning last said. */
  private readonly unmatchedDeny = new Map<ServerView, readonly PatternEntry[]>();
  private saidUnmatched = "";

  constructor(private readonly options: ToolSessionOptions) {
    this.recorder = new AuditRecorder(options.audit, options.identity, options.log);
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
  }

  get dryRun(): boolean {
    return this.pipeline.dryRun;
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
    const refusal = this.options.limits.requestLimit(counters);
    if (refusal === null) return null;
    const decision = this.dryRun ? "would-deny" : "deny";
    this.recorder.request({
      requestId,
      policyDigest: this.options.limits.policyDigest,
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
  ): ToolResult {
    this.recorder.call({
      requestId,
      policyDigest: this.options.limits.policyDigest,
      server: server?.name ?? null,
      tool,
      decision: "deny",
      code: "E_STATE_UNAVAILABLE",
      rule: null,
      reason,
      warnings: [],
      args,
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
      policyDigest: this.options.limits.policyDigest,
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
    const refusal = this.options.limits.requestLimit(counters);
    if (refusal === null) return null;
    this.recorder.call({
      requestId,
      policyDigest: this.options.limits.policyDigest,
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
    this.recorder.call({
      requestId,
      policyDigest: this.options.limits.policyDigest,
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
      policyDigest: this.options.limits.policyDigest,
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

  /** Meta describe: the name stage alone; a visible tool's definition is then shown to the client. */
  describe(input: {
    requestId: JsonRpcId;
    server: ServerView;
    tool: string;
    catalog: CatalogState | null;
    via: string;
    args: unknown;
  }): DescribeStep {
    const { server, tool } = input;
    const record = (decision: CallOutcome, code: string | null, rule: Rule | null, reason: string): boolean =>
      this.recorder.call({
        requestId: input.requestId,
        policyDigest: server.gate.policyDigest,
        server: server.name,
        tool,
        via: input.via,
        decision,
        code,
        rule,
        reason,
        warnings: [],
        args: input.args,
      });
    const byName = this.dryRun ? null : hiddenByName(server.gate, tool);
    if (byName !== null && byName.kind === "hidden") {
      record("hidden", byName.code, byName.rule, byName.reason);
      return { kind: "absent" };
    }
    const catalog = input.catalog;
    if (catalog === null) return { kind: "needs-catalog" };
    if (!catalog.ok) {
      record("deny", "E_CATALOG_UNAVAILABLE", null, catalog.reason);
      return {
        kind: "deny",
        result: denyResult({
          tool,
          code: "E_CATALOG_UNAVAILABLE",
          reason: catalog.reason,
          violations: [],
          by: "toolgate",
        }),
      };
    }
    const definition = catalog.snapshot.tools.get(tool);
    if (definition === undefined) {
      record(
        "hidden",
        null,
        null,
        `tool '${tool}' is not in the catalog of '${server.name ?? "the server"}'`,
      );
      return { kind: "absent" };
    }
    const verdict = server.gate.visibility(definition, catalogToolContext(server, catalog.snapshot, tool));
    if (!verdict.visible && !this.dryRun) {
      record("hidden", verdict.code, verdict.rule, verdict.reason);
      return { kind: "absent" };
    }
    const recorded = verdict.visible
      ? record("allow", null, null, "visible")
      : record("would-hide", verdict.code, verdict.rule, verdict.reason);
    if (!recorded) {
      return {
        kind: "deny",
        result: denyResult({
          tool: input.via,
          code: "E_AUDIT_WRITE",
          reason: "the audit log could not be written, so nothing was described",
          violations: [],
          by: "toolgate",
        }),
      };
    }
    this.shownTools.add(shownKey(server, tool));
    return { kind: "described", tool: definition };
  }

  /**
   * Each catalog a server's connection fetched: the warnings about it (dead whitelist patterns, pins left
   * without their tool, tools withheld for drift), said once for as long as they stay the same.
   */
  catalogFetched(server: ServerView, snapshot: CatalogSnapshot): void {
    const names = [...snapshot.tools.keys()];
    const lines = server.gate.catalogWarnings?.(names, server.serverId()) ?? [];
    for (const [name, tool] of snapshot.tools) {
      const verdict = server.gate.visibility(tool, catalogToolContext(server, snapshot, name));
      if (!verdict.visible && verdict.code === "E_TOOL_DRIFT") {
        lines.push(`withholding tool '${name}' (E_TOOL_DRIFT): ${verdict.reason}`);
      }
    }
    this.noteUnmatchedDeny(server, names);
    const text = lines.join("\n");
    if (text === (this.saidWarnings.get(server) ?? "")) return;
    this.saidWarnings.set(server, text);
    const prefix = server.name === null ? "" : `[${server.name}] `;
    for (const line of lines) this.options.log(`${prefix}${line}`);
  }

  /** W_DENY_UNMATCHED: once every server's catalog is in, the deny entries no tool of any of them matches. */
  private noteUnmatchedDeny(server: ServerView, names: readonly string[]): void {
    const entries = server.gate.unmatchedDeny?.(names);
    if (entries === undefined) return;
    this.unmatchedDeny.set(server, entries);
    const servers = this.options.servers ?? 1;
    if (this.unmatchedDeny.size < servers) return;
    const lists = [...this.unmatchedDeny.values()].map((l) => new Set(l.map(entryKey)));
    const none = entries.filter((e) => lists.every((keys) => keys.has(entryKey(e))));
    const lines = none.map((e) =>
      formatDiagnostic(
        diagnosticAt(
          "warning",
          "W_DENY_UNMATCHED",
          e.at,
          `tools.deny entry '${e.pattern}' matches no tool of ${servers > 1 ? `any of the ${servers} servers` : "the server"}, so it denies nothing (a typo?)`,
          "correct the name (toolgate info <server> lists them) or remove the entry",
        ),
      ),
    );
    const text = lines.join("\n");
    if (text === this.saidUnmatched) return;
    this.saidUnmatched = text;
    for (const line of lines) this.options.log(line);
  }
}

function entryKey(e: PatternEntry): string {
  return `${e.pattern}\u0000${e.at.file}:${e.at.line}:${e.at.column}`;
}

function shownKey(server: ServerView, tool: string): string {
  return `${server.name ?? ""}\u0000${tool}`;
}

/** Why a request could not be counted, for its refusal. */
export function uncountedReason(error: unknown): string {
  return `its limits cannot be judged now: ${error instanceof Error ? error.message : String(error)}`;
}
