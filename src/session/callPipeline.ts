import type { ApprovalRecord, CallOutcome } from "../audit/events.js";
import type { ReceiptSlot } from "../audit/receipt.js";
import { findApprovalArtifact, stripApproval, type ApprovalLookup } from "../engine/controls/approval.js";
import type { ApprovalEvidence } from "../engine/model/approval.js";
import type { Rule, SessionCounters } from "../engine/model/decision.js";
import type { JsonObject, JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { UpstreamAuthCode } from "../engine/errors.js";
import { denyResult, NOT_RECORDED_REASON, type ToolResult } from "./answers.js";
import { approvalRecord, approvalRequiredText, notApprovedText } from "./approvalRecord.js";
import { approvalRequestParams, type ApprovalOutcome } from "./approvalQuestion.js";
import type { ApprovalClaims } from "./approvalClaims.js";
import type { AuditRecorder } from "./auditRecorder.js";
import { callRedaction, type CallRedaction } from "./callRedaction.js";
import type { CallVerdict } from "./callVerdict.js";
import type { ListedTool } from "./catalogPages.js";
import type { GatewayCode } from "./codes.js";
import { settleOr, whenSettled, type Settled } from "../state/settled.js";
import type { RejectedArtifact } from "./obligations.js";
import type { ServerView } from "./serverView.js";
import type { CatalogState } from "./toolCatalog.js";

/** One `tools/call` as a surface hands it to its session. */
export interface ToolCall {
  requestId: JsonRpcId;
  server: ServerView;
  /** The tool's name at the server. */
  tool: string;
  /**
   * The call's params as the server would get them (`name` is the server's tool name; `arguments` and
   * `_meta` as the client sent them). Approval artifacts are found here and stripped before forwarding.
   */
  params: JsonObject;
  /** The server's catalog; `null` when the surface has not fetched it (then the name alone may decide). */
  catalog: CatalogState | null;
  /** The session's counts before this call (from countRequest). */
  counters: SessionCounters;
  /** `null` when the person behind the client can be asked (form-mode elicitation); else why not. */
  cannotAsk: string | null;
  /** The client holds the tool's listed definition (direct listing), so may validate against its outputSchema. */
  definitionShown: boolean;
  /** serve's meta-tool mode: the meta tool the client called. */
  via?: string;
  /** The name as the client called it, for log lines (default: `tool`). */
  calledAs?: string;
  /** Where each decision recorded for the call leaves its receipt (a signed log: runCall answers with it). */
  receipt?: ReceiptSlot;
}

/**
 * What the surface does next with a call:
 * - `forward` these params to the server (the decision is recorded); `failed` when the server cannot be had;
 * - `ask` the person this question (MCP elicitation), then hand the outcome to `answered`;
 * - `deny` with this result; `absent`: answer as the server answers a tool it does not have;
 * - `needs-catalog`: fetch the server's catalog and decide again;
 * - `withdrawn`: the client cancelled while its person was asked; send nothing.
 */
/** Why a forwarded call never reached its server: it was down, or its credentials were refused. */
export type UnreachedCode = "E_UPSTREAM_UNAVAILABLE" | UpstreamAuthCode;

export type CallStep =
  | { kind: "forward"; params: JsonObject; failed(reason: string, code?: UnreachedCode): ToolResult }
  | {
      kind: "ask";
      question: JsonObject;
      /** What the question is about, for a person asked out of band (serve's dashboard). */
      about: { tool: string; server: string | null };
      answered(outcome: ApprovalOutcome): CallStep;
    }
  | { kind: "deny"; result: ToolResult }
  | { kind: "absent" }
  | { kind: "needs-catalog" }
  | { kind: "withdrawn" };

/** What every step of one session shares. */
export interface PipelineContext {
  recorder: AuditRecorder;
  /** Spends the id of each signed artifact that approves a call (single use). */
  claims: ApprovalClaims;
  dryRun: boolean;
  approvalTimeoutMs: number;
  /** A decision line for `--verbose` (only called when verbose). */
  verbose: ((line: string) => void) | null;
  /**
   * What an E_APPROVAL_REQUIRED refusal ends with: the policy rule and the ways this surface offers to
   * approve (approvalHelp.ts). `null`: nothing is added.
   */
  approvalHelp: ((tool: string, rule: Rule, asked: boolean) => string) | null;
}

/** The call with its approval artifact found and stripped: what is decided is what would be forwarded. */
export interface CallInHand {
  call: ToolCall;
  forward: JsonObject;
  /** `arguments` as forwarded (and decided), `undefined` when absent. */
  args: unknown;
  lookup: ApprovalLookup;
  definition: ListedTool | undefined;
  redaction(): CallRedaction;
}

export function callInHand(call: ToolCall): CallInHand {
  const lookup = findApprovalArtifact(call.params);
  const forward = lookup.kind === "none" ? call.params : stripApproval(call.params);
  const args = forward.arguments;
  let redaction: CallRedaction | undefined;
  return {
    call,
    forward,
    args,
    lookup,
    definition: call.catalog?.ok === true ? call.catalog.snapshot.tools.get(call.tool) : undefined,
    redaction: () => (redaction ??= callRedaction(call.server.gate.redaction?.(call.tool) ?? null, args)),
  };
}

/** The step for a verdict: recorded, logged, and answered the same way on every surface. */
export function stepFor(ctx: PipelineContext, hand: CallInHand, decided: CallVerdict): Settled<CallStep> {
  if (ctx.dryRun) return settledStep(ctx, hand, decided);
  return whenSettled(claimed(ctx, decided), (verdict) => settledStep(ctx, hand, verdict));
}

function settledStep(ctx: PipelineContext, hand: CallInHand, verdict: CallVerdict): CallStep {
  if (verdict.kind === "allow" && verdict.ask !== undefined && !ctx.dryRun) {
    return askStep(ctx, hand, verdict.ask, verdict.warnings);
  }
  const asked = verdict.kind === "allow" ? verdict.ask : undefined;
  const outcome: CallOutcome = ctx.dryRun
    ? verdict.kind === "allow" && asked === undefined
      ? "allow"
      : verdict.kind === "hidden"
        ? "would-hide"
        : "would-deny"
    : verdict.kind;
  const scrub = (text: string): string => hand.redaction().scrub(text);
  // Reasons of refusals can quote argument values (a path outside the scope); allow reasons never do.
  const reason =
    verdict.kind !== "allow"
      ? scrub(verdict.reason) + helpFor(ctx, hand, verdict)
      : asked !== undefined
        ? `${scrub(approvalRequiredText(hand.call.tool, asked.rule))}: dry run, the person was not asked and the call was forwarded`
        : verdict.reason;
  const code = verdict.kind === "allow" ? (asked === undefined ? null : "E_APPROVAL_REQUIRED") : verdict.code;
  const rule = asked !== undefined ? asked.rule : verdict.rule;
  const checked: ApprovalEvidence | RejectedArtifact | undefined =
    verdict.kind === "allow"
      ? (verdict.approval ?? asked?.rejected)
      : verdict.kind === "deny"
        ? verdict.rejected
        : undefined;
  const warnings = verdict.kind === "allow" ? verdict.warnings : [];
  const recorded = record(ctx, hand, {
    decision: outcome,
    code,
    rule,
    reason,
    warnings,
    approval: () => approvalRecord(hand.lookup, checked, undefined, hand.redaction()),
  });
  ctx.verbose?.(
    `tools/call ${label(hand)}: ${outcome}${code === null ? "" : ` ${code}`} — ${reason}${ruleText(rule)}${warningsText(warnings)}`,
  );
  if (verdict.kind === "allow" || ctx.dryRun) return recorded ? forwardStep(ctx, hand) : notRecorded(hand);
  // A refusal is answered the same whether or not it was recorded (the failure is on stderr): an audit
  // problem must not make a hidden tool look different from an absent one.
  if (verdict.kind === "hidden") return { kind: "absent" };
  return {
    kind: "deny",
    result: denyResult({
      tool: hand.call.tool,
      code: verdict.code,
      reason,
      violations: hand.redaction().scrubViolations(verdict.violations),
      by: verdict.by,
      omitStructuredContent: verdict.shownToClient && omitsStructuredContent(hand),
    }),
  };
}

/**
 * Asks the person and forwards only on an explicit approval. The surface sends the question on the call's
 * own stream and hands back what became of it.
 */
function askStep(
  ctx: PipelineContext,
  hand: CallInHand,
  ask: { rule: Rule; rejected?: RejectedArtifact },
  warnings: string[],
): CallStep {
  const redaction = hand.redaction();
  const view = hand.call.server;
  const shown = view.shownName === undefined ? view.serverId() : view.shownName();
  const question = approvalRequestParams({
    tool: hand.call.tool,
    ...(shown === undefined ? {} : { server: shown }),
    shownArguments: redaction.shownArguments(),
    rule: ask.rule,
    ...(ask.rejected === undefined ? {} : { rejectedArtifact: redaction.scrub(ask.rejected.problem) }),
    ...(hand.definition?.inputSchema === undefined ? {} : { inputSchema: hand.definition.inputSchema }),
  });
  ctx.verbose?.(
    `tools/call ${label(hand)}: asking the person for approval (tools.approval_required '${ask.rule.value}')`,
  );
  return {
    kind: "ask",
    question,
    about: { tool: hand.call.tool, server: hand.call.server.name },
    answered: (answer) => answeredStep(ctx, hand, ask, warnings, answer),
  };
}

function answeredStep(
  ctx: PipelineContext,
  hand: CallInHand,
  ask: { rule: Rule; rejected?: RejectedArtifact },
  warnings: string[],
  answer: ApprovalOutcome,
): CallStep {
  const redaction = hand.redaction();
  const outcome = answer.approved ? "accept" : answer.outcome;
  const detail = !answer.approved && answer.detail !== undefined ? redaction.scrub(answer.detail) : undefined;
  const approval = (): ApprovalRecord | undefined =>
    approvalRecord(
      hand.lookup,
      ask.rejected,
      {
        outcome,
        ...(detail === undefined ? {} : { detail }),
        ...(answer.approved && answer.by !== undefined ? { approver: answer.by } : {}),
      },
      redaction,
    );
  const required = redaction.scrub(approvalRequiredText(hand.call.tool, ask.rule));
  if (answer.approved) {
    const reason = `${required}: ${answer.by === undefined ? "the person" : `${answer.by}, in the dashboard,`} approved this call`;
    const recorded = record(ctx, hand, {
      decision: "allow",
      code: null,
      rule: ask.rule,
      reason,
      warnings,
      approval,
    });
    ctx.verbose?.(`tools/call ${label(hand)}: allow — ${reason}${warningsText(warnings)}`);
    return recorded ? forwardStep(ctx, hand) : notRecorded(hand);
  }
  const reason = `${required} and ${notApprovedText(answer.outcome, ctx.approvalTimeoutMs)}${detail === undefined ? "" : ` (${detail})`}${ctx.approvalHelp?.(hand.call.tool, ask.rule, true) ?? ""}`;
  record(ctx, hand, {
    decision: "deny",
    code: "E_APPROVAL_REQUIRED",
    rule: ask.rule,
    reason,
    warnings: [],
    approval,
  });
  ctx.verbose?.(`tools/call ${label(hand)}: deny E_APPROVAL_REQUIRED — ${reason}`);
  // A call the client cancelled is not answered (MCP cancellation).
  if (answer.outcome === "client-cancelled") return { kind: "withdrawn" };
  return {
    kind: "deny",
    result: denyResult({
      tool: hand.call.tool,
      code: "E_APPROVAL_REQUIRED",
      reason,
      violations: [],
      by: "policy",
      omitStructuredContent: omitsStructuredContent(hand),
    }),
  };
}

/** The end of an E_APPROVAL_REQUIRED refusal: its rule and how to approve (written after the scrub: it quotes no argument). */
function helpFor(ctx: PipelineContext, hand: CallInHand, verdict: CallVerdict): string {
  if (verdict.kind !== "deny" || verdict.code !== "E_APPROVAL_REQUIRED" || verdict.rule === null) return "";
  return ctx.approvalHelp?.(hand.call.tool, verdict.rule, false) ?? "";
}

/**
 * A call approved by a signed artifact spends the artifact's id: a second call with the same artifact is
 * refused, whoever sends it. (Not in a dry run, which forwards without enforcing.)
 */
function claimed(ctx: PipelineContext, verdict: CallVerdict): Settled<CallVerdict> {
  if (verdict.kind !== "allow" || verdict.approval === undefined) return verdict;
  const { summary, rule } = verdict.approval;
  const expires = Date.parse(summary.expires_at);
  return settleOr(
    ctx.claims.claim(summary.approval_id, Number.isFinite(expires) ? expires : Date.now()),
    (free): CallVerdict => (free ? verdict : spentVerdict(verdict)),
    // Single use cannot be checked: the artifact approves nothing now (fail closed).
    (error): CallVerdict => ({
      kind: "deny",
      code: "E_STATE_UNAVAILABLE",
      reason: `the approval artifact '${summary.approval_id}' cannot be checked for single use: ${error instanceof Error ? error.message : String(error)}`,
      rule,
      violations: [],
      by: "toolgate",
      shownToClient: true,
    }),
  );
}

/** An artifact spent before approves nothing: the call is refused, whoever sends it. */
function spentVerdict(verdict: CallVerdict & { kind: "allow" }): CallVerdict {
  const { summary, digest, rule } = verdict.approval!;
  const problem = `the approval artifact '${summary.approval_id}' was used before: each signed artifact approves one call`;
  return {
    kind: "deny",
    code: "E_APPROVAL_REQUIRED",
    reason: `${approvalRequiredText(summary.bound_tool, rule)} and ${problem}`,
    rule,
    violations: [],
    by: "policy",
    shownToClient: true,
    rejected: { problem, digest },
  };
}

function forwardStep(ctx: PipelineContext, hand: CallInHand): CallStep {
  return {
    kind: "forward",
    params: hand.forward,
    failed: (reason, code = "E_UPSTREAM_UNAVAILABLE") => {
      const scrubbed = hand.redaction().scrub(reason);
      record(ctx, hand, {
        decision: "deny",
        code,
        rule: null,
        reason: scrubbed,
        warnings: [],
        approval: () => undefined,
      });
      ctx.verbose?.(`tools/call ${label(hand)}: deny ${code} — ${scrubbed}`);
      return denyResult({
        tool: hand.call.tool,
        code,
        reason: scrubbed,
        violations: [],
        by: "toolgate",
        omitStructuredContent: omitsStructuredContent(hand),
      });
    },
  };
}

function notRecorded(hand: CallInHand): CallStep {
  return {
    kind: "deny",
    result: denyResult({
      tool: hand.call.tool,
      code: "E_AUDIT_WRITE",
      reason: NOT_RECORDED_REASON,
      violations: [],
      by: "toolgate",
      omitStructuredContent: omitsStructuredContent(hand),
    }),
  };
}

interface Recorded {
  decision: CallOutcome;
  code: GatewayCode | null;
  rule: Rule | null;
  reason: string;
  warnings: readonly string[];
  approval: () => ApprovalRecord | undefined;
}

function record(ctx: PipelineContext, hand: CallInHand, what: Recorded): boolean {
  if (!ctx.recorder.enabled) return true;
  const { call } = hand;
  return ctx.recorder.call({
    requestId: call.requestId,
    policyDigest: call.server.gate.policyDigest,
    server: call.server.name,
    tool: call.tool,
    ...(call.via === undefined ? {} : { via: call.via }),
    ...what,
    args: hand.args,
    ...(hand.redaction().contract === null ? {} : { redacted: () => hand.redaction().shownArguments() }),
    shown: () => hand.redaction().shownArguments(),
    ...(call.receipt === undefined ? {} : { receipt: call.receipt }),
  });
}

/** SDK clients validate structuredContent against a tool's outputSchema even on errors (see answers.ts). */
function omitsStructuredContent(hand: CallInHand): boolean {
  return hand.call.definitionShown && hand.definition?.outputSchema !== undefined;
}

function label(hand: CallInHand): string {
  return hand.call.calledAs ?? hand.call.tool;
}

function warningsText(warnings: readonly string[]): string {
  return warnings.length === 0 ? "" : ` (warnings: ${warnings.join(", ")})`;
}

function ruleText(rule: Rule | null): string {
  return rule === null ? "" : ` [${rule.layer} ${rule.kind} ${rule.value}]`;
}
