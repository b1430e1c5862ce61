import { argumentsDigest } from "../audit/argsDigest.js";
import {
  auditRule,
  type ApprovalRecord,
  type CallOutcome,
  type HiddenTool,
  type RequestEvent,
  type ToolCallEvent,
  type ToolListEvent,
} from "../audit/events.js";
import type { AuditSink } from "../audit/sink.js";
import type { Rule } from "../engine/model/decision.js";

/**
 * The audit events of one serve session: the events `wrap` writes, plus `server` (which upstream the event is
 * about), `client` (the token's name over HTTP, `stdio` otherwise) and, in meta mode, `via` (the meta tool
 * the client called). `session` is the MCP session id.
 */
export interface ServeEventFields {
  server: string | null;
  client: string;
  via?: string;
}

export interface CallRecord {
  requestId: string | number;
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
  redacted?: unknown;
  approval?: ApprovalRecord;
}

export class ServeAudit {
  constructor(
    private readonly sink: AuditSink | null,
    private readonly session: string,
    private readonly client: string,
    private readonly policyDigest: string | null,
    private readonly log: (line: string) => void,
  ) {}

  get enabled(): boolean {
    return this.sink !== null;
  }

  /** False when the event could not be written: the caller then refuses what it was about to forward. */
  call(record: CallRecord): boolean {
    if (this.sink === null) return true;
    const digest = argumentsDigest(record.args);
    const event: ToolCallEvent & ServeEventFields = {
      time: new Date().toISOString(),
      session: this.session,
      policy_digest: this.policyDigest,
      request_id: record.requestId,
      event: "tools/call",
      tool: record.tool,
      decision: record.decision,
      code: record.code,
      rule: auditRule(record.rule),
      reason: record.reason,
      warnings: [...record.warnings],
      args_sha256: digest.sha256,
      server: record.server,
      client: this.client,
    };
    if (!digest.canonical) event.args_canonical = false;
    if (record.redacted !== undefined) event.args_redacted = record.redacted;
    if (record.approval !== undefined) event.approval = record.approval;
    if (record.via !== undefined) event.via = record.via;
    return this.write(event);
  }

  list(
    requestId: string | number,
    server: string,
    shown: number,
    hidden: HiddenTool[],
    via?: string,
  ): boolean {
    if (this.sink === null) return true;
    const event: ToolListEvent & ServeEventFields = {
      time: new Date().toISOString(),
      session: this.session,
      policy_digest: this.policyDigest,
      request_id: requestId,
      event: "tools/list",
      decision: "filtered",
      shown,
      hidden: hidden.length,
      hidden_tools: hidden,
      server,
      client: this.client,
    };
    if (via !== undefined) event.via = via;
    return this.write(event);
  }

  refused(
    requestId: string | number,
    method: string,
    code: string,
    rule: Rule | null,
    reason: string,
  ): boolean {
    if (this.sink === null) return true;
    const event: RequestEvent & ServeEventFields = {
      time: new Date().toISOString(),
      session: this.session,
      policy_digest: this.policyDigest,
      request_id: requestId,
      event: "request",
      method,
      decision: "deny",
      code,
      rule: auditRule(rule),
      reason,
      server: null,
      client: this.client,
    };
    return this.write(event);
  }

  private write(event: Parameters<AuditSink["write"]>[0]): boolean {
    try {
      this.sink!.write(event);
      return true;
    } catch (error) {
      this.log(`E_AUDIT_WRITE ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}
