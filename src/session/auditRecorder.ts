import { argumentsDigest } from "../audit/argsDigest.js";
import {
  auditRule,
  type ApprovalRecord,
  type AuditEvent,
  type CallOutcome,
  type HiddenItem,
  type HiddenTool,
  type ItemEvent,
  type ItemListEvent,
  type RequestEvent,
  type ToolCallEvent,
  type ToolListEvent,
} from "../audit/events.js";
import type { ReceiptSlot } from "../audit/receipt.js";
import type { AuditSink } from "../audit/sink.js";
import type { Rule } from "../engine/model/decision.js";
import type { JsonRpcId } from "../engine/rpc/jsonRpc.js";
import { NO_METRICS, type GatewayMetrics } from "../ops/gatewayMetrics.js";

/** Who the events of one session are about. */
export interface AuditIdentity {
  /** `session` of every event: wrap's `--label` or a random id, serve's MCP session id. */
  session: string;
  /**
   * `client` of every event (serve: the token's name over HTTP, `stdio` otherwise). Present exactly when
   * the session fronts several servers, and then every event also names its `server` (`null`: none).
   */
  client?: string;
  /** `principal` of every event of a session that names its client (serve). */
  principal?: string;
}

export interface CallFacts {
  requestId: JsonRpcId;
  policyDigest: string | null;
  server: string | null;
  tool: string;
  via?: string;
  decision: CallOutcome;
  code: string | null;
  rule: Rule | null;
  reason: string;
  warnings: readonly string[];
  args: unknown;
  /** The arguments as `tools.redact_args` lets them be written; absent for tools not listed there. */
  redacted?: () => unknown;
  /** The arguments as they may be written whatever the tool (`--audit-args`): asked for only then. */
  shown?: () => unknown;
  approval?: () => ApprovalRecord | undefined;
  /** Where the call's receipt goes once its event is written to a signed log (receipt.ts). */
  receipt?: ReceiptSlot;
}

export interface ListFacts {
  requestId: JsonRpcId | null;
  policyDigest: string | null;
  server: string | null;
  decision: ToolListEvent["decision"];
  shown: number;
  hidden: HiddenTool[];
  via?: string;
}

export interface RequestFacts {
  requestId: JsonRpcId | null;
  policyDigest: string | null;
  method: string;
  decision: RequestEvent["decision"];
  code: string;
  rule: Rule | null;
  reason: string;
}

export interface ItemFacts {
  requestId: JsonRpcId | null;
  policyDigest: string | null;
  server: string | null;
  kind: ItemEvent["event"];
  method: string;
  name: string;
  decision: ItemEvent["decision"];
  code: string | null;
  rule: Rule | null;
  reason: string;
}

export interface ItemListFacts {
  requestId: JsonRpcId | null;
  policyDigest: string | null;
  server: string | null;
  method: ItemListEvent["event"];
  decision: ItemListEvent["decision"];
  shown: number;
  hidden: HiddenItem[];
}

/**
 * Writes the decision events of one session, and counts each call decision and each tool a list hid for
 * the gateway's metrics (`toolgate_decisions_total`). Every write answers whether it happened: a decision to
 * forward that could not be recorded is turned into a refusal by the caller (and counted as that refusal).
 * An event is built only when there is a log to write it to, so the hot path without `--audit-log` pays for
 * neither the timestamp nor the digest.
 */
export class AuditRecorder {
  constructor(
    private readonly sink: AuditSink | null,
    private readonly identity: AuditIdentity,
    private readonly log: (line: string) => void,
    private readonly metrics: GatewayMetrics = NO_METRICS,
    /** `--audit-args`: each call event also records its arguments (as the redaction lets them be written). */
    private readonly recordArguments = false,
  ) {}

  /** Whether call facts are wanted at all: an audit log to write them to, or metrics to count them in. */
  get enabled(): boolean {
    return this.sink !== null || this.metrics !== NO_METRICS;
  }

  call(facts: CallFacts): boolean {
    const recorded = this.recordCall(facts);
    // An allowed call that could not be recorded is refused (E_AUDIT_WRITE): counted as what the client got.
    if (recorded || facts.decision !== "allow")
      this.metrics.decision(facts.decision, facts.code, facts.server);
    else this.metrics.decision("deny", "E_AUDIT_WRITE", facts.server);
    return recorded;
  }

  private recordCall(facts: CallFacts): boolean {
    if (this.sink === null) return true;
    // Written out rather than spread together: this runs once per audited call.
    const digest = argumentsDigest(facts.args);
    const event: ToolCallEvent = {
      time: new Date().toISOString(),
      session: this.identity.session,
      policy_digest: facts.policyDigest,
      request_id: facts.requestId,
      event: "tools/call",
      tool: facts.tool,
      decision: facts.decision,
      code: facts.code,
      rule: auditRule(facts.rule),
      reason: facts.reason,
      warnings: [...facts.warnings],
      args_sha256: digest.sha256,
    };
    if (!digest.canonical) event.args_canonical = false;
    if (facts.redacted !== undefined) event.args_redacted = facts.redacted();
    else if (this.recordArguments && facts.args !== undefined && facts.shown !== undefined) {
      event.args = facts.shown();
    }
    const approval = facts.approval?.();
    if (approval !== undefined) event.approval = approval;
    const located = this.located(event, facts.server, facts.via);
    if (facts.receipt === undefined) return this.write(located);
    try {
      const at = this.sink.write(located);
      // Only the four fields: nothing of the arguments or the reason (what redaction hides stays hidden).
      if (at)
        facts.receipt.value = { log_id: at.log_id, seq: at.seq, hash: at.hash, decision: facts.decision };
      return true;
    } catch (error) {
      return this.failed(error);
    }
  }

  list(facts: ListFacts): boolean {
    const verdict = facts.decision === "filtered" ? "hidden" : "would-hide";
    for (const hidden of facts.hidden) this.metrics.decision(verdict, hidden.code, facts.server);
    if (this.sink === null) return true;
    const event: ToolListEvent = {
      time: new Date().toISOString(),
      session: this.identity.session,
      policy_digest: facts.policyDigest,
      request_id: facts.requestId,
      event: "tools/list",
      decision: facts.decision,
      shown: facts.shown,
      hidden: facts.hidden.length,
      hidden_tools: facts.hidden,
    };
    return this.write(this.located(event, facts.server, facts.via));
  }

  request(facts: RequestFacts): boolean {
    if (this.sink === null) return true;
    const event: RequestEvent = {
      time: new Date().toISOString(),
      session: this.identity.session,
      policy_digest: facts.policyDigest,
      request_id: facts.requestId,
      event: "request",
      method: facts.method,
      decision: facts.decision,
      code: facts.code,
      rule: auditRule(facts.rule),
      reason: facts.reason,
    };
    return this.write(this.located(event, null));
  }

  item(facts: ItemFacts): boolean {
    if (this.sink === null) return true;
    const event: ItemEvent = {
      time: new Date().toISOString(),
      session: this.identity.session,
      policy_digest: facts.policyDigest,
      request_id: facts.requestId,
      event: facts.kind,
      method: facts.method,
      name: facts.name,
      decision: facts.decision,
      code: facts.code,
      rule: auditRule(facts.rule),
      reason: facts.reason,
    };
    return this.write(this.located(event, facts.server));
  }

  itemList(facts: ItemListFacts): boolean {
    if (this.sink === null) return true;
    const event: ItemListEvent = {
      time: new Date().toISOString(),
      session: this.identity.session,
      policy_digest: facts.policyDigest,
      request_id: facts.requestId,
      event: facts.method,
      decision: facts.decision,
      shown: facts.shown,
      hidden: facts.hidden.length,
      hidden_items: facts.hidden,
    };
    return this.write(this.located(event, facts.server));
  }

  /** The fields of a session in front of several servers: which server, which client, which meta tool. */
  private located(event: AuditEvent, server: string | null, via?: string): AuditEvent {
    if (this.identity.client === undefined) return event;
    event.server = server;
    event.client = this.identity.client;
    if (this.identity.principal !== undefined) event.principal = this.identity.principal;
    if (via !== undefined) event.via = via;
    return event;
  }

  private write(event: AuditEvent): boolean {
    try {
      this.sink!.write(event);
      return true;
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): false {
    this.log(`E_AUDIT_WRITE ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}
