import type { ApprovalRecord, CallOutcome, HiddenTool } from "../audit/events.js";
import { auditRule } from "../audit/events.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { denyResponse } from "../session/denyResult.js";
import type { ApprovalOutcome } from "../wrap/approvalAsker.js";
import { approvalRequestParams } from "../session/approvalQuestion.js";
import { callRedaction, type CallRedaction } from "../session/callRedaction.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import { planObligations, type RejectedArtifact } from "../session/obligations.js";
import { approvalRecord, notApprovedText } from "../wrap/policyProxy.js";
import { sdkUnknownToolAnswer } from "../session/unknownToolAnswer.js";
import { findApprovalArtifact, stripApproval } from "../engine/controls/approval.js";
import type { ApprovalEvidence } from "../engine/model/approval.js";
import type {
  RealpathHook,
  CallContext,
  Rule,
  SessionCounters,
  Violation,
} from "../engine/model/decision.js";
import type { ToolContext, ToolGate } from "../engine/model/gate.js";
import type { Extra, ServeMode } from "./gatewaySession.js";
import {
  describeResult,
  invalidArgumentsResult,
  metaToolDefinitions,
  notInCatalogResult,
  readMetaArguments,
  searchResult,
  type ToolResult,
} from "./metaTools.js";
import {
  assertDistinctNames,
  exposedName,
  metaToolName,
  parseMetaToolName,
  splitExposedName,
} from "./naming.js";
import { RelayedError, upstreamFailureResult } from "./relay.js";
import { searchTools } from "./search.js";
import type { CatalogSnapshot, CatalogTool } from "../session/serverCatalog.js";
import type { ServeAudit } from "./serveAudit.js";
import { UpstreamUnavailable, type UpstreamLink } from "../upstream/upstreamLink.js";
import { rewriteToolResult } from "./uriRewrite.js";

type Json = Record<string, unknown>;

const MODEL_NAME_MAX = 64;
const MODEL_NAME = /^[A-Za-z0-9_-]+$/;

export interface ServerSlot {
  name: string;
  config: McpServerConfig;
  gate: ToolGate;
  link: UpstreamLink;
  /** Resolves symlinks as the server sees them (stdio servers share toolgate's filesystem). */
  realpath?: RealpathHook;
}

export interface RouterDeps {
  mode: ServeMode;
  slots: ReadonlyMap<string, ServerSlot>;
  order: readonly string[];
  counters: SessionCounters;
  /** The policy alone: limits on requests that are not tool calls (meta search and describe). */
  policy: ToolGate;
  audit: ServeAudit;
  forward(slot: ServerSlot, method: string, params: Json, extra: Extra): Promise<Json>;
  /** The client declared form-mode elicitation: a call under `approval_required` can be put to its person. */
  canElicit(): boolean;
  /** Puts an approval question to the client's person (MCP elicitation) while the call waits. */
  askApproval(question: JsonObject, extra: Extra): Promise<ApprovalOutcome>;
  approvalTimeoutMs: number;
  log(line: string): void;
}

function shownKey(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}

/** What the name stage knows about a tool the server listed: its server and its schema's raw text. */
function listedContext(slot: ServerSlot, catalog: CatalogSnapshot, tool: string): ToolContext {
  return { listed: true, serverId: slot.name, exactSchemaText: () => catalog.exactSchemaText(tool) };
}

/** How a tool of one server looks to this session. */
type Sight =
  | { kind: "visible"; tool: CatalogTool }
  /** Not shown: answered as a tool that does not exist. */
  | { kind: "hidden"; code: string | null; rule: Rule | null; reason: string }
  /** Not shown, but the policy says to explain calls to it (`enforcement.denied_tools: explain`). */
  | { kind: "explained"; code: string; rule: Rule | null; reason: string }
  /** The server's catalog cannot be had (down, or its tools/list failed). */
  | { kind: "unavailable"; reason: string };

/**
 * Tools in both modes, with one decision for everything: per session and per server, the server's gate
 * decides which tools exist for the client (`tools/list` in direct mode; search and describe in meta mode)
 * and whether a call goes through. A tool that is not visible is never forwarded, and a call to it gets
 * exactly the answer a missing tool gets: the MCP SDK's unknown-tool result (direct mode, serve being an SDK
 * server itself) or the spec's `<tool> not found in <server> MCP server catalog` (meta mode).
 */
export class ToolRouter {
  private readonly unknownTool = sdkUnknownToolAnswer();
  /** Exposed names already warned about (once per session). */
  private readonly warnedNames = new Set<string>();
  /** Tools this client has been shown (listed, or found by search or describe), per server. */
  private readonly shownTools = new Set<string>();

  constructor(private readonly deps: RouterDeps) {}

  // ---- listing ------------------------------------------------------------------------------------------

  async list(requestId: string | number): Promise<Json> {
    if (this.deps.mode === "meta") {
      const tools = this.deps.order.flatMap((server) => metaToolDefinitions(server));
      assertDistinctNames(tools.map((t) => ({ exposed: t.name, origin: `meta tool ${t.name}` })));
      return { tools };
    }
    const perServer = await Promise.all(
      this.deps.order.map(async (server) => {
        const slot = this.deps.slots.get(server)!;
        try {
          return { slot, tools: await slot.link.tools() };
        } catch (error) {
          // A server that went down keeps its last catalog in the list (its calls answer "unavailable"
          // until it is back); one that never answered is left out.
          const known = slot.link.lastKnownTools;
          this.deps.log(
            `tools/list: MCP server '${server}' ${known === null ? "left out" : "listed from its last catalog"}: ${messageOf(error)}`,
          );
          return { slot, tools: known };
        }
      }),
    );
    const shown: Json[] = [];
    for (const { slot, tools: catalog } of perServer) {
      if (catalog === null) continue;
      const hidden: HiddenTool[] = [];
      let count = 0;
      for (const tool of catalog.tools.values()) {
        const verdict = slot.gate.visibility(tool, listedContext(slot, catalog, tool.name));
        if (!verdict.visible || tool.name === "") {
          hidden.push({ tool: tool.name, code: verdict.code, rule: auditRule(verdict.rule) });
          continue;
        }
        const exposed = exposedName(slot.name, tool.name);
        this.warnAboutName(exposed);
        this.shownTools.add(shownKey(slot.name, tool.name));
        shown.push({ ...tool, name: exposed });
        count++;
      }
      if (!this.deps.audit.list(requestId, slot.name, count, hidden)) {
        throw new RelayedError(
          -32603,
          "toolgate: E_AUDIT_WRITE the audit log could not be written; tool list withheld",
        );
      }
    }
    // Injective by construction (see naming.ts); checked anyway so a broken assumption fails closed.
    assertDistinctNames(shown.map((t) => ({ exposed: t.name as string, origin: `tool ${String(t.name)}` })));
    return { tools: shown };
  }

  /**
   * Many model APIs accept tool names of at most 64 characters from `[A-Za-z0-9_-]`; a longer exposed name
   * still works with MCP clients that pass names through, so it is listed, with a warning on stderr.
   */
  private warnAboutName(exposed: string): void {
    if (this.warnedNames.has(exposed)) return;
    if (exposed.length <= MODEL_NAME_MAX && MODEL_NAME.test(exposed)) return;
    this.warnedNames.add(exposed);
    this.deps.log(
      `tool name '${exposed}' is ${exposed.length} characters${MODEL_NAME.test(exposed) ? "" : " and uses characters outside [A-Za-z0-9_-]"}; ` +
        `some model APIs refuse names longer than ${MODEL_NAME_MAX} or with other characters (a shorter server name in mcp.json helps)`,
    );
  }

  // ---- calling ------------------------------------------------------------------------------------------

  async call(requestId: string | number, params: Json, extra: Extra): Promise<Json> {
    const name = params.name;
    if (typeof name !== "string") {
      throw new RelayedError(-32602, "Invalid params: tools/call needs params.name, a string");
    }
    if (this.deps.mode === "direct") return this.directCall(requestId, name, params, extra);
    return this.metaCall(requestId, name, params, extra);
  }

  private countCall(isToolCall: boolean): SessionCounters {
    const c = this.deps.counters;
    const before = { requests: c.requests, toolCalls: c.toolCalls };
    c.requests++;
    if (isToolCall) c.toolCalls++;
    return before;
  }

  private async directCall(
    requestId: string | number,
    name: string,
    params: Json,
    extra: Extra,
  ): Promise<Json> {
    const counters = this.countCall(true);
    const split = splitExposedName(name);
    const slot = split === null ? undefined : this.deps.slots.get(split.server);
    const unknown = (): ToolResult => this.unknownTool.answer(0, name).result as ToolResult;
    if (split === null || slot === undefined) {
      const reason =
        split === null
          ? `'${name}' is not of the form <server>__<tool>`
          : `no enabled MCP server '${split.server}'`;
      this.deps.audit.call({
        requestId,
        server: null,
        tool: name,
        decision: "hidden",
        code: null,
        rule: null,
        reason,
        warnings: [],
        args: params.arguments,
      });
      return unknown();
    }
    return this.decideAndForward(requestId, slot, split.name, params.arguments, params, extra, counters, {
      unknown,
      outputSchemaShown: true,
    });
  }

  private async metaCall(
    requestId: string | number,
    name: string,
    params: Json,
    extra: Extra,
  ): Promise<Json> {
    const meta = parseMetaToolName(name);
    const slot = meta === null ? undefined : this.deps.slots.get(meta.server);
    if (meta === null || slot === undefined) {
      this.countCall(true);
      this.deps.audit.call({
        requestId,
        server: null,
        tool: name,
        decision: "hidden",
        code: null,
        rule: null,
        reason: `'${name}' is not a meta tool of this session`,
        warnings: [],
        args: params.arguments,
      });
      return this.unknownTool.answer(0, name).result as ToolResult;
    }
    const read = readMetaArguments(meta.kind, params.arguments);
    const counters = this.countCall(read.ok && read.value.kind === "invoke");
    if (!read.ok) return invalidArgumentsResult(name, read.message);
    const via = metaToolName(meta.kind, slot.name);
    const args = read.value;
    if (args.kind === "invoke") {
      return this.decideAndForward(requestId, slot, args.tool, args.arguments, params, extra, counters, {
        unknown: () => notInCatalogResult(args.tool, slot.name),
        outputSchemaShown: false,
        via,
      });
    }
    const limited = this.requestLimit(requestId, slot, via, counters, params.arguments);
    if (limited !== null) return limited;
    if (args.kind === "search") {
      let catalog: CatalogSnapshot;
      try {
        catalog = await slot.link.tools();
      } catch (error) {
        return upstreamFailureResult(messageOf(error));
      }
      const visible: CatalogTool[] = [];
      const hidden: HiddenTool[] = [];
      for (const tool of catalog.tools.values()) {
        const verdict = slot.gate.visibility(tool, listedContext(slot, catalog, tool.name));
        if (verdict.visible) visible.push(tool);
        else hidden.push({ tool: tool.name, code: verdict.code, rule: auditRule(verdict.rule) });
      }
      if (!this.deps.audit.list(requestId, slot.name, visible.length, hidden, via)) {
        return denied(
          via,
          "E_AUDIT_WRITE",
          "the audit log could not be written, so nothing was searched",
          [],
          "toolgate",
          false,
        );
      }
      const hits = searchTools(visible, args.query, args.topK);
      for (const hit of hits) this.shownTools.add(shownKey(slot.name, hit.name));
      return searchResult(hits);
    }
    // describe
    const sight = await this.sight(slot, args.tool);
    const outcome: CallOutcome =
      sight.kind === "visible" ? "allow" : sight.kind === "unavailable" ? "deny" : "hidden";
    const recorded = this.deps.audit.call({
      requestId,
      server: slot.name,
      tool: args.tool,
      via,
      decision: outcome,
      code:
        sight.kind === "visible"
          ? null
          : sight.kind === "unavailable"
            ? "E_UPSTREAM_UNAVAILABLE"
            : sight.code,
      rule: sight.kind === "visible" || sight.kind === "unavailable" ? null : sight.rule,
      reason: sight.kind === "visible" ? "visible" : sight.reason,
      warnings: [],
      args: params.arguments,
    });
    if (sight.kind === "unavailable") return upstreamFailureResult(sight.reason);
    if (sight.kind !== "visible") return notInCatalogResult(args.tool, slot.name);
    if (!recorded) {
      return denied(
        via,
        "E_AUDIT_WRITE",
        "the audit log could not be written, so nothing was described",
        [],
        "toolgate",
        false,
      );
    }
    this.shownTools.add(shownKey(slot.name, args.tool));
    return describeResult(sight.tool);
  }

  /** Meta search and describe are requests, not tool calls: only `max_requests_total` limits them. */
  private requestLimit(
    requestId: string | number,
    slot: ServerSlot,
    via: string,
    counters: SessionCounters,
    args: unknown,
  ): ToolResult | null {
    if (!this.deps.policy.requestLimitReached(counters)) return null;
    const reason = `limit reached: this session already made ${counters.requests} requests, the policy's limits.max_requests_total`;
    this.deps.audit.call({
      requestId,
      server: slot.name,
      tool: via,
      via,
      decision: "deny",
      code: "E_RATE_LIMIT",
      rule: null,
      reason,
      warnings: [],
      args,
    });
    return denied(via, "E_RATE_LIMIT", reason, [], "policy", false);
  }

  /** The name stage for one tool of one server, against the server's current catalog. */
  private async sight(slot: ServerSlot, tool: string): Promise<Sight> {
    // The name alone decides most hidden tools without asking the server anything.
    const byName = slot.gate.visibility({ name: tool });
    if (!byName.visible && !byName.explain) {
      return { kind: "hidden", code: byName.code, rule: byName.rule, reason: byName.reason };
    }
    let catalog: CatalogSnapshot;
    try {
      catalog = await slot.link.tools();
    } catch (error) {
      return { kind: "unavailable", reason: messageOf(error) };
    }
    const definition = catalog.tools.get(tool);
    if (definition === undefined) {
      return {
        kind: "hidden",
        code: null,
        rule: null,
        reason: `tool '${tool}' is not in the catalog of '${slot.name}'`,
      };
    }
    const verdict = slot.gate.visibility(definition, listedContext(slot, catalog, tool));
    if (verdict.visible) return { kind: "visible", tool: definition };
    // A tool withheld for drift that this client was shown before: the model knows it exists, so say why.
    const shownBefore = verdict.code === "E_TOOL_DRIFT" && this.shownTools.has(shownKey(slot.name, tool));
    if (verdict.explain || shownBefore) {
      return {
        kind: "explained",
        code: verdict.code ?? "E_TOOL_NOT_ALLOWED",
        rule: verdict.rule,
        reason: verdict.reason,
      };
    }
    return { kind: "hidden", code: verdict.code, rule: verdict.rule, reason: verdict.reason };
  }

  private async decideAndForward(
    requestId: string | number,
    slot: ServerSlot,
    tool: string,
    args: unknown,
    params: Json,
    extra: Extra,
    counters: SessionCounters,
    answers: { unknown: () => ToolResult; outputSchemaShown: boolean; via?: string },
  ): Promise<Json> {
    const via = answers.via;
    // One audit record shape for every outcome; once the call's redaction is known it scrubs the reason
    // and, for tools under redact_args, adds the redacted arguments.
    const record = (
      decision: CallOutcome,
      code: string | null,
      rule: Rule | null,
      reason: string,
      extra: {
        warnings?: readonly string[];
        args?: unknown;
        redaction?: CallRedaction;
        approval?: ApprovalRecord | undefined;
      } = {},
    ): boolean =>
      this.deps.audit.call({
        requestId,
        server: slot.name,
        tool,
        ...(via === undefined ? {} : { via }),
        decision,
        code,
        rule,
        reason: extra.redaction === undefined ? reason : extra.redaction.scrub(reason),
        warnings: extra.warnings ?? [],
        args: "args" in extra ? extra.args : args,
        ...(extra.redaction === undefined || extra.redaction.contract === null
          ? {}
          : { redacted: extra.redaction.shownArguments() }),
        ...(extra.approval === undefined ? {} : { approval: extra.approval }),
      });

    const sight = await this.sight(slot, tool);
    switch (sight.kind) {
      case "hidden":
        record("hidden", sight.code, sight.rule, sight.reason);
        return answers.unknown();
      case "unavailable":
        record("deny", "E_UPSTREAM_UNAVAILABLE", null, sight.reason);
        return upstreamFailureResult(sight.reason);
      case "explained":
        record("deny", sight.code, sight.rule, sight.reason);
        return denied(tool, sight.code, sight.reason, [], "policy", false);
      case "visible":
        break;
    }
    const definition = sight.tool;
    // Tools with an output schema: SDK clients validate structuredContent even on errors (see denyResult.ts).
    const omitStructured = answers.outputSchemaShown && definition.outputSchema !== undefined;
    // The call as it would be forwarded: the approval artifact found and stripped, so what is decided is
    // exactly what the server gets.
    const asCalled: Json = { name: tool };
    if (args !== undefined) asCalled.arguments = args;
    if (params._meta !== undefined) asCalled._meta = params._meta;
    const lookup = findApprovalArtifact(asCalled);
    const forwarded = lookup.kind === "none" ? asCalled : stripApproval(asCalled);
    const callArgs = forwarded.arguments;
    const redaction = callRedaction(slot.gate.redaction?.(tool) ?? null, callArgs);
    const recordCall = (
      decision: CallOutcome,
      code: string | null,
      rule: Rule | null,
      reason: string,
      warnings: readonly string[],
      approval?: ApprovalRecord,
    ): boolean => record(decision, code, rule, reason, { warnings, args: callArgs, redaction, approval });
    const approvalOf = (
      checked: ApprovalEvidence | RejectedArtifact | undefined,
      elicitation?: ApprovalRecord["elicitation"],
    ): ApprovalRecord | undefined => approvalRecord(lookup, checked, elicitation, redaction);

    const context: CallContext = {};
    if (lookup.kind === "found") context.approval = lookup.artifact;
    else if (lookup.kind === "conflict") context.approvalProblem = lookup.reason;
    if (definition.inputSchema !== undefined) context.inputSchema = definition.inputSchema;
    if (slot.realpath !== undefined) context.realpath = slot.realpath;
    const decision = slot.gate.decideCall(tool, callArgs, counters, context);
    if (decision.decision === "deny") {
      const code = decision.code ?? "E_TOOL_DENIED";
      recordCall("deny", code, decision.rule, decision.reason, [], approvalOf(undefined));
      return denied(
        tool,
        code,
        redaction.scrub(decision.reason),
        redaction.scrubViolations(decision.violations),
        "policy",
        omitStructured,
      );
    }
    const plan = planObligations(
      decision,
      this.deps.canElicit() ? null : "the client did not declare form-mode elicitation in initialize",
    );
    let approval: ApprovalRecord | undefined;
    let rule = decision.rule;
    let reason = decision.reason;
    if (plan.kind === "refuse") {
      const rejected =
        plan.artifactProblem === undefined
          ? undefined
          : {
              problem: plan.artifactProblem,
              ...(plan.artifactDigest === undefined ? {} : { digest: plan.artifactDigest }),
            };
      recordCall("deny", plan.code, plan.rule, plan.reason, [], approvalOf(rejected));
      return denied(tool, plan.code, redaction.scrub(plan.reason), [], "policy", omitStructured);
    }
    if (plan.kind === "ask") {
      const question = approvalRequestParams({
        tool,
        server: slot.name,
        shownArguments: redaction.shownArguments(),
        rule: plan.rule,
        ...(plan.rejected === undefined ? {} : { rejectedArtifact: redaction.scrub(plan.rejected.problem) }),
      });
      const answer = await this.deps.askApproval(question, extra);
      const outcome = answer.approved ? "accept" : answer.outcome;
      const detail =
        !answer.approved && answer.detail !== undefined ? redaction.scrub(answer.detail) : undefined;
      approval = approvalOf(plan.rejected, { outcome, ...(detail === undefined ? {} : { detail }) });
      const required = `tool '${tool}' requires approval (tools.approval_required '${plan.rule.value}')`;
      if (!answer.approved) {
        const refusal = `${required} and ${notApprovedText(answer.outcome, this.deps.approvalTimeoutMs)}${detail === undefined ? "" : ` (${detail})`}`;
        recordCall("deny", "E_APPROVAL_REQUIRED", plan.rule, refusal, [], approval);
        // A call the client cancelled gets no answer (MCP cancellation).
        if (answer.outcome === "client-cancelled") throw new RelayedError(-32800, "Request cancelled");
        return denied(tool, "E_APPROVAL_REQUIRED", redaction.scrub(refusal), [], "policy", omitStructured);
      }
      rule = plan.rule;
      reason = `${required}: the person approved this call`;
    } else {
      approval = approvalOf(plan.approval);
    }
    if (!recordCall("allow", null, rule, reason, decision.warnings, approval)) {
      return denied(
        tool,
        "E_AUDIT_WRITE",
        "the audit log could not be written, so the call was not forwarded",
        [],
        "toolgate",
        omitStructured,
      );
    }
    try {
      const result = await this.deps.forward(slot, "tools/call", forwarded, extra);
      return rewriteToolResult(result, slot.name);
    } catch (error) {
      if (error instanceof UpstreamUnavailable) {
        recordCall("deny", "E_UPSTREAM_UNAVAILABLE", null, error.message, []);
        return upstreamFailureResult(error.message);
      }
      throw error;
    }
  }
}

function denied(
  tool: string,
  code: string,
  reason: string,
  violations: readonly Violation[],
  by: "policy" | "toolgate",
  omitStructuredContent: boolean,
): ToolResult {
  return denyResponse(0, { tool, code, reason, violations, by, omitStructuredContent }).result as ToolResult;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
