import { argumentsDigest } from "../audit/argsDigest.js";
import {
  auditRule,
  type ApprovalRecord,
  type AuditEvent,
  type CallOutcome,
  type HiddenTool,
  type ToolCallEvent,
} from "../audit/events.js";
import type { AuditSink } from "../audit/sink.js";
import {
  approvalDigest,
  findApprovalArtifact,
  stripApproval,
  type ApprovalLookup,
} from "../engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../engine/model/approval.js";
import type { ApprovalEvidence } from "../engine/model/approval.js";
import type {
  RealpathHook,
  CallContext,
  Rule,
  SessionCounters,
  Violation,
} from "../engine/model/decision.js";
import type { ToolContext, ToolGate } from "../engine/model/gate.js";
import { extractToolSchemaTexts } from "../engine/pins/exactHash.js";
import { ApprovalAsker, type ApprovalOutcome } from "./approvalAsker.js";
import { approvalRequestParams } from "../session/approvalQuestion.js";
import { callRedaction, type CallRedaction } from "../session/callRedaction.js";
import { clientElicitsForms } from "../session/clientCapabilities.js";
import { denyResponse } from "../session/denyResult.js";
import type { InboundFrame } from "../engine/rpc/frames.js";
import { readFrame } from "../engine/rpc/inbound.js";
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isJsonObject,
  isRequest,
  REQUEST_REFUSED,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import { planObligations, type RejectedArtifact } from "../session/obligations.js";
import { PrivateRequests } from "./privateRequests.js";
import { ToolCatalog, type ListedTool } from "../session/toolCatalog.js";
import {
  learnedUnknownToolAnswer,
  probeToolName,
  sdkUnknownToolAnswer,
  type UnknownToolAnswer,
} from "../session/unknownToolAnswer.js";

export interface PolicyProxyOptions {
  gate: ToolGate;
  /** `null`: no audit log. */
  audit: AuditSink | null;
  /** Session label recorded in every audit event. */
  session: string;
  /** Decide and record, but forward everything (audit says `would-deny` / `would-hide`). */
  dryRun?: boolean;
  /** One readable line per decision through `log`. */
  verbose?: boolean;
  /** Diagnostics: dropped frames, failed catalog fetches, decisions when verbose. One line, no newline. */
  log: (line: string) => void;
  /** Bound on each request toolgate sends on its own (catalog pages, the probe) and on waiting for them. */
  privateRequestTimeoutMs?: number;
  /** Called with the tool names each time toolgate has fetched the server's full catalog. */
  onCatalog?: (tools: readonly string[]) => void;
  /**
   * The server as `tool_pins` entries name it (`server_id`) and as approval questions show it. Absent: the
   * `serverInfo.name` the server gives in its `initialize` answer.
   */
  serverId?: string;
  /** How long a call that needs approval waits for the person's answer (default 120 s). */
  approvalTimeoutMs?: number;
  /** Resolves symbolic links for `restrict_scope` contracts with `realpath: true` (the server shares our filesystem). */
  realpath?: RealpathHook;
}

/** Where the proxy's output goes; the transport serializes (JSON.stringify of the object given). */
export interface ProxyPeers {
  toServer(message: JsonRpcMessage): void;
  toClient(message: JsonRpcMessage): void;
}

type CallVerdict =
  | {
      kind: "allow";
      reason: string;
      rule: Rule | null;
      warnings: string[];
      /** The approval artifact that satisfied `approval_required`. */
      approval?: ApprovalEvidence;
      /** The call needs the person's explicit accept before it is forwarded. */
      ask?: { rule: Rule; rejected?: RejectedArtifact };
    }
  | {
      kind: "deny";
      code: string;
      reason: string;
      rule: Rule | null;
      violations: readonly Violation[];
      by: "policy" | "toolgate";
      /** The tool is visible, so the client has its definition (and may validate against its outputSchema). */
      shownToClient: boolean;
      /** A supplied approval artifact that was not accepted. */
      rejected?: RejectedArtifact;
    }
  | { kind: "hidden"; code: string | null; reason: string; rule: Rule | null };

/** One `tools/call` as the proxy handles it: the request to forward (approval artifact stripped) and its parts. */
interface CallInHand {
  /** The request as it would be forwarded: the checked object, without `_meta.approval`. */
  forward: JsonRpcRequest;
  name: string;
  /** `arguments` as forwarded (and decided), `undefined` when absent. */
  args: unknown;
  lookup: ApprovalLookup;
  definition: ListedTool | undefined;
}

const DEFAULT_PRIVATE_TIMEOUT_MS = 10_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

/**
 * The policy proxy between one MCP client and one MCP server, independent of how messages travel. Every
 * frame is parsed strictly and checked; what is forwarded is the checked object. `tools/list` answers are
 * filtered and `tools/call` requests decided by the same gate, so listing and calling cannot disagree;
 * everything else passes through unchanged.
 *
 * Client requests and notifications are handled in arrival order: when a call has to wait (for the
 * catalog or the unknown-tool answer), later ones queue behind it. Client responses to server requests
 * never wait, so a server that needs an answer before it can serve the catalog cannot deadlock us.
 */
export class PolicyProxy {
  private readonly gate: ToolGate;
  private readonly dryRun: boolean;
  private readonly privateRequests: PrivateRequests;
  private readonly catalog: ToolCatalog;
  private readonly timeoutMs: number;

  private readonly approvals: ApprovalAsker;
  private readonly approvalTimeoutMs: number;

  private readonly counters: SessionCounters = { requests: 0, toolCalls: 0 };
  /** The client declared form-mode elicitation in `initialize`: approvals can be asked. */
  private clientCanElicit = false;
  /** `serverInfo.name` from the server's `initialize` answer. */
  private serverName: string | undefined;
  /** Every tool name a filtered list has shown the client this session (a withheld one then gets the explicit deny). */
  private readonly shownTools = new Set<string>();
  private lastCatalogWarnings = "";
  /** Client `initialize` requests awaiting the server's answer (its capabilities decide the catalog). */
  private readonly initializeIds = new Set<JsonRpcId>();
  /** Client `tools/list` requests awaiting the server's answer: only these answers are filtered. */
  private readonly pendingLists = new Set<JsonRpcId>();
  private serverHasTools: boolean | null = null;

  private started = false;
  private signalStarted: () => void = () => {};
  private readonly startedSignal = new Promise<void>((resolve) => (this.signalStarted = resolve));
  private unknownAnswer: UnknownToolAnswer | null = null;
  private probe: Promise<void> | null = null;

  private waiting = false;
  private readonly backlog: Array<JsonRpcRequest | JsonRpcNotification> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly options: PolicyProxyOptions,
    private readonly peers: ProxyPeers,
  ) {
    this.gate = options.gate;
    this.dryRun = options.dryRun === true;
    this.timeoutMs = options.privateRequestTimeoutMs ?? DEFAULT_PRIVATE_TIMEOUT_MS;
    this.privateRequests = new PrivateRequests((request) => peers.toServer(request), this.timeoutMs);
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.approvals = new ApprovalAsker((message) => peers.toClient(message), this.approvalTimeoutMs);
    this.catalog = new ToolCatalog(
      (cursor) => this.privateRequests.start("tools/list", cursor === undefined ? {} : { cursor }).answer,
      options.log,
      (tools) => this.catalogFetched(tools),
    );
  }

  /** One frame from the client. */
  fromClient(frame: InboundFrame): void {
    const inbound = readFrame(frame);
    if (!inbound.ok) {
      this.options.log(`rejected a client frame (${inbound.problem}): ${inbound.message}`);
      // The id of a frame we could not accept is not trustworthy, so the answer carries none.
      this.peers.toClient(errorResponse(null, inbound.code, inbound.message));
      return;
    }
    if (inbound.kind === "response") {
      const id = (inbound.message as JsonRpcResponse).id;
      if (this.approvals.owns(id)) this.approvals.settle(id, inbound.message as JsonRpcResponse);
      else this.peers.toServer(inbound.message);
      return;
    }
    const message = inbound.message as JsonRpcRequest | JsonRpcNotification;
    if (this.waiting) this.backlog.push(message);
    else this.run(message);
  }

  /** One frame from the server. */
  fromServer(frame: InboundFrame): void {
    const inbound = readFrame(frame);
    if (!inbound.ok) {
      this.options.log(`dropped a server frame (${inbound.problem}): ${inbound.message}`);
      return;
    }
    if (inbound.kind === "response") {
      const response = inbound.message as JsonRpcResponse;
      const id = response.id;
      const text = frame.kind === "text" ? frame.text : undefined;
      if (this.privateRequests.owns(id)) {
        this.privateRequests.settle(id, response, text);
        return;
      }
      if (id !== null && this.initializeIds.delete(id)) this.noteInitializeResult(response);
      else if (id !== null && this.pendingLists.delete(id)) {
        this.filterList(response, text);
        return;
      }
      this.peers.toClient(response);
      return;
    }
    const message = inbound.message as JsonRpcRequest | JsonRpcNotification;
    if (inbound.kind === "request" && this.approvals.owns((message as JsonRpcRequest).id)) {
      // The client's answer would be taken for the answer to one of toolgate's approval questions.
      this.options.log("refused a server request whose id is inside toolgate's private namespace");
      this.peers.toServer(
        errorResponse(
          (message as JsonRpcRequest).id,
          INVALID_REQUEST,
          "Invalid Request: this id is reserved by toolgate; use another",
        ),
      );
      return;
    }
    if (inbound.kind === "notification" && message.method === "notifications/tools/list_changed") {
      this.catalog.markStale();
      if (this.started) void this.catalog.refresh();
    }
    this.peers.toClient(message);
  }

  /** The server is gone: nothing toolgate asked it will be answered. */
  serverClosed(): void {
    this.privateRequests.abandonAll("the server closed its output");
  }

  /** The client is gone: no approval question will be answered, so the calls waiting for one are denied. */
  clientClosed(): void {
    this.approvals.abandonAll("the client closed its input");
  }

  /** Resolves once no client message is waiting to be handled. */
  idle(): Promise<void> {
    if (!this.waiting && this.backlog.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private run(message: JsonRpcRequest | JsonRpcNotification): void {
    let pending: Promise<void> | undefined;
    try {
      pending = this.handleClientMessage(message);
    } catch (error) {
      this.internalError(message, error);
    }
    if (pending === undefined) return;
    this.waiting = true;
    pending
      .catch((error: unknown) => this.internalError(message, error))
      .finally(() => {
        this.waiting = false;
        this.drainBacklog();
      });
  }

  private drainBacklog(): void {
    while (!this.waiting && this.backlog.length > 0) this.run(this.backlog.shift()!);
    if (!this.waiting && this.backlog.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Fails closed: a request we could not handle is answered with an error, never forwarded. */
  private internalError(message: JsonRpcRequest | JsonRpcNotification, error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    this.options.log(`internal error handling ${message.method}: ${text}`);
    if (isRequest(message)) {
      this.peers.toClient(
        errorResponse(message.id, INTERNAL_ERROR, `toolgate internal error; request not forwarded: ${text}`),
      );
    }
  }

  private handleClientMessage(message: JsonRpcRequest | JsonRpcNotification): Promise<void> | undefined {
    if (!isRequest(message)) {
      if (message.method === "notifications/cancelled" && this.cancelPendingApproval(message))
        return undefined;
      this.peers.toServer(message);
      if (message.method === "notifications/initialized") this.start();
      return undefined;
    }
    const request = message;
    if (this.privateRequests.owns(request.id)) {
      this.peers.toClient(
        errorResponse(
          request.id,
          INVALID_REQUEST,
          "Invalid Request: this id is reserved by toolgate; use another",
        ),
      );
      return undefined;
    }
    switch (request.method) {
      case "initialize":
        this.clientCanElicit = clientElicitsForms(request.params);
        this.initializeIds.add(request.id);
        this.peers.toServer(request);
        return undefined;
      case "ping":
        this.peers.toServer(request);
        return undefined;
      case "tools/call":
        return this.handleToolCall(request);
    }
    const counters = this.countRequest(false);
    if (this.gate.requestLimitReached(counters)) {
      const reason = `limit reached: this session already made ${counters.requests} requests, the policy's limits.max_requests_total`;
      this.record(() => ({
        ...this.eventBase(request.id),
        event: "request",
        method: request.method,
        decision: this.dryRun ? "would-deny" : "deny",
        code: "E_RATE_LIMIT",
        rule: null,
        reason,
      }));
      this.verbose(`${request.method}: ${this.dryRun ? "would deny" : "deny"} E_RATE_LIMIT — ${reason}`);
      if (!this.dryRun) {
        this.peers.toClient(
          errorResponse(request.id, REQUEST_REFUSED, `Request refused by policy: E_RATE_LIMIT ${reason}`, {
            error_code: "E_RATE_LIMIT",
            reason,
          }),
        );
        return undefined;
      }
    }
    if (request.method === "tools/list") this.pendingLists.add(request.id);
    this.peers.toServer(request);
    return undefined;
  }

  /** Counters as they were before this request (what limits compare against), then counts it. */
  private countRequest(isToolCall: boolean): SessionCounters {
    const before = { requests: this.counters.requests, toolCalls: this.counters.toolCalls };
    this.counters.requests++;
    if (isToolCall) this.counters.toolCalls++;
    return before;
  }

  private handleToolCall(request: JsonRpcRequest): Promise<void> | undefined {
    const counters = this.countRequest(true);
    const name = request.params?.name;
    if (typeof name !== "string") {
      this.options.log("refused a tools/call without a string params.name");
      this.peers.toClient(
        errorResponse(request.id, INVALID_PARAMS, "Invalid params: tools/call needs params.name, a string"),
      );
      return undefined;
    }
    if (this.started && this.catalog.fresh && this.unknownAnswer !== null) {
      this.decideToolCall(request, name, counters);
      return undefined;
    }
    return this.whenReady().then(() => this.decideToolCall(request, name, counters));
  }

  /** Waits (bounded) until the catalog is current and the unknown-tool answer is known. */
  private async whenReady(): Promise<void> {
    if (!this.started) {
      // A client that calls before `notifications/initialized`: start once the server has answered
      // `initialize`, otherwise wait for the handshake, but not forever.
      if (this.serverHasTools !== null) this.start();
      else await this.withTimeout(this.startedSignal);
    }
    if (!this.started) return;
    await Promise.all([this.catalog.ensureFresh(), this.probe]);
  }

  private withTimeout(promise: Promise<void>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.timeoutMs);
      timer.unref();
      void promise.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** After the handshake: fetch the catalog and learn the unknown-tool answer, concurrently. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    if (this.serverHasTools === false) this.catalog.setNoTools();
    else void this.catalog.refresh();
    this.probe = this.learnUnknownToolAnswer();
    this.signalStarted();
  }

  private async learnUnknownToolAnswer(): Promise<void> {
    const probeName = probeToolName();
    try {
      const response = await this.privateRequests.request("tools/call", { name: probeName, arguments: {} });
      this.unknownAnswer = learnedUnknownToolAnswer(probeName, response);
    } catch (error) {
      this.options.log(
        `could not learn the server's answer for unknown tools (${error instanceof Error ? error.message : String(error)}); using the MCP SDK's answer`,
      );
      this.unknownAnswer = sdkUnknownToolAnswer();
    }
  }

  private noteInitializeResult(response: JsonRpcResponse): void {
    const result = response.result;
    if (!isJsonObject(result)) return;
    const capabilities = result.capabilities;
    this.serverHasTools = isJsonObject(capabilities) && isJsonObject(capabilities.tools);
    const info = result.serverInfo;
    if (isJsonObject(info) && typeof info.name === "string" && info.name !== "") this.serverName = info.name;
  }

  /** The server as pins and approval questions name it. */
  private serverId(): string | undefined {
    return this.options.serverId ?? this.serverName;
  }

  /** What the pin stage needs besides a definition from the catalog. */
  private catalogToolContext(name: string): ToolContext {
    const serverId = this.serverId();
    const context: ToolContext = { listed: true, exactSchemaText: () => this.catalog.exactSchemaText(name) };
    if (serverId !== undefined) context.serverId = serverId;
    return context;
  }

  /** Each fetched catalog: pins left without their tool and tools withheld for drift, said once until they change. */
  private catalogFetched(tools: ReadonlyMap<string, ListedTool>): void {
    const names = [...tools.keys()];
    this.options.onCatalog?.(names);
    const lines = this.gate.catalogWarnings?.(names, this.serverId()) ?? [];
    for (const [name, tool] of tools) {
      const verdict = this.gate.visibility(tool, this.catalogToolContext(name));
      if (!verdict.visible && verdict.code === "E_TOOL_DRIFT") {
        lines.push(`withholding tool '${name}' (E_TOOL_DRIFT): ${verdict.reason}`);
      }
    }
    const text = lines.join("\n");
    if (text === this.lastCatalogWarnings) return;
    this.lastCatalogWarnings = text;
    for (const line of lines) this.options.log(line);
  }

  private decideToolCall(request: JsonRpcRequest, name: string, counters: SessionCounters): void {
    const call = this.callInHand(request, name);
    const listed = this.catalog.current();
    const verdict = this.callVerdict(call, counters, listed.ok ? null : listed.reason);

    if (verdict.kind === "allow" && verdict.ask !== undefined && !this.dryRun) {
      this.askApproval(call, verdict.ask, verdict.warnings);
      return;
    }
    const outcome: CallOutcome = this.dryRun
      ? verdict.kind === "allow" && verdict.ask === undefined
        ? "allow"
        : verdict.kind === "hidden"
          ? "would-hide"
          : "would-deny"
      : verdict.kind;
    let redaction: CallRedaction | undefined;
    const redact = (): CallRedaction => (redaction ??= this.redactionFor(call));
    // Reasons of refusals can quote argument values (a path outside the scope); allow reasons never do.
    const reason =
      verdict.kind !== "allow"
        ? redact().scrub(verdict.reason)
        : verdict.ask !== undefined
          ? `${redact().scrub(approvalRequiredText(call.name, verdict.ask.rule))}: dry run, the person was not asked and the call was forwarded`
          : verdict.reason;
    const code =
      verdict.kind === "allow" ? (verdict.ask === undefined ? null : "E_APPROVAL_REQUIRED") : verdict.code;
    const recorded = this.recordCall(call, redact, {
      decision: outcome,
      code,
      rule: verdict.kind === "allow" && verdict.ask !== undefined ? verdict.ask.rule : verdict.rule,
      reason,
      warnings: verdict.kind === "allow" ? verdict.warnings : [],
      approval: () =>
        approvalRecord(
          call.lookup,
          verdict.kind === "allow"
            ? (verdict.approval ?? verdict.ask?.rejected)
            : verdict.kind === "deny"
              ? verdict.rejected
              : undefined,
          undefined,
          redact(),
        ),
    });
    if (this.options.verbose === true) {
      this.options.log(
        `tools/call ${name}: ${outcome}${code === null ? "" : ` ${code}`} — ${reason}${ruleText(verdict.rule)}`,
      );
    }

    if (verdict.kind === "allow" || this.dryRun) {
      if (recorded) this.peers.toServer(call.forward);
      else this.refuseUnrecorded(call);
      return;
    }
    // A refusal is answered the same whether or not it was recorded (the failure is on stderr): an
    // audit problem must not make a hidden tool look different from an absent one.
    if (verdict.kind === "hidden") {
      this.peers.toClient((this.unknownAnswer ?? sdkUnknownToolAnswer()).answer(request.id, name));
      return;
    }
    this.peers.toClient(
      denyResponse(request.id, {
        tool: name,
        code: verdict.code,
        // Scrubbed like every other text toolgate writes about the call (serve answers the same way).
        reason,
        violations: redact().scrubViolations(verdict.violations),
        by: verdict.by,
        // A tool the client was never shown has no output schema on the client's side.
        omitStructuredContent: verdict.shownToClient && hasOutputSchema(call.definition),
      }),
    );
  }

  /** The call with its approval artifact found and stripped: what is decided is what would be forwarded. */
  private callInHand(request: JsonRpcRequest, name: string): CallInHand {
    const lookup = findApprovalArtifact(request.params);
    const params = lookup.kind === "none" ? request.params : stripApproval(request.params);
    const forward = params === request.params ? request : { ...request, params };
    const listed = this.catalog.current();
    return {
      forward,
      name,
      args: params?.arguments,
      lookup,
      definition: listed.ok ? listed.tools.get(name) : undefined,
    };
  }

  private redactionFor(call: CallInHand): CallRedaction {
    return callRedaction(this.gate.redaction?.(call.name) ?? null, call.args);
  }

  private refuseUnrecorded(call: CallInHand): void {
    this.peers.toClient(
      denyResponse(call.forward.id, {
        tool: call.name,
        code: "E_AUDIT_WRITE",
        reason: "the audit log could not be written, so the call was not forwarded",
        violations: [],
        by: "toolgate",
        omitStructuredContent: hasOutputSchema(call.definition),
      }),
    );
  }

  /**
   * Asks the person (MCP elicitation) and forwards only on an explicit approval. The question does not hold
   * up the client's other messages: they go on being handled while the person decides.
   */
  private askApproval(
    call: CallInHand,
    ask: { rule: Rule; rejected?: RejectedArtifact },
    warnings: string[],
  ): void {
    const redaction = this.redactionFor(call);
    const params = approvalRequestParams({
      tool: call.name,
      ...(this.serverId() === undefined ? {} : { server: this.serverId()! }),
      shownArguments: redaction.shownArguments(),
      rule: ask.rule,
      ...(ask.rejected === undefined ? {} : { rejectedArtifact: redaction.scrub(ask.rejected.problem) }),
    });
    this.verbose(
      `tools/call ${call.name}: asking the person for approval (tools.approval_required '${ask.rule.value}')`,
    );
    void this.approvals
      .ask(call.forward.id, params)
      .then((answer) => this.approvalAnswered(call, ask, warnings, answer, redaction))
      .catch((error: unknown) => this.internalError(call.forward, error));
  }

  private approvalAnswered(
    call: CallInHand,
    ask: { rule: Rule; rejected?: RejectedArtifact },
    warnings: string[],
    answer: ApprovalOutcome,
    redaction: CallRedaction,
  ): void {
    const outcome = answer.approved ? "accept" : answer.outcome;
    const detail =
      !answer.approved && answer.detail !== undefined ? redaction.scrub(answer.detail) : undefined;
    const approval = (): ApprovalRecord | undefined =>
      approvalRecord(
        call.lookup,
        ask.rejected,
        { outcome, ...(detail === undefined ? {} : { detail }) },
        redaction,
      );
    const required = redaction.scrub(approvalRequiredText(call.name, ask.rule));
    if (answer.approved) {
      const reason = `${required}: the person approved this call`;
      const recorded = this.recordCall(call, () => redaction, {
        decision: "allow",
        code: null,
        rule: ask.rule,
        reason,
        warnings,
        approval,
      });
      this.verbose(`tools/call ${call.name}: allow — ${reason}`);
      if (recorded) this.peers.toServer(call.forward);
      else this.refuseUnrecorded(call);
      return;
    }
    const reason = `${required} and ${notApprovedText(answer.outcome, this.approvalTimeoutMs)}${detail === undefined ? "" : ` (${detail})`}`;
    this.recordCall(call, () => redaction, {
      decision: "deny",
      code: "E_APPROVAL_REQUIRED",
      rule: ask.rule,
      reason,
      warnings: [],
      approval,
    });
    this.verbose(`tools/call ${call.name}: deny E_APPROVAL_REQUIRED — ${reason}`);
    // A call the client cancelled is not answered (MCP cancellation).
    if (answer.outcome === "client-cancelled") return;
    this.peers.toClient(
      denyResponse(call.forward.id, {
        tool: call.name,
        code: "E_APPROVAL_REQUIRED",
        reason,
        violations: [],
        by: "policy",
        omitStructuredContent: hasOutputSchema(call.definition),
      }),
    );
  }

  /** `notifications/cancelled` for a call waiting for its approval: withdraw the question; the server never saw the call. */
  private cancelPendingApproval(message: JsonRpcNotification): boolean {
    const requestId = message.params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return false;
    return this.approvals.cancelCall(requestId);
  }

  private recordCall(
    call: CallInHand,
    redaction: () => CallRedaction,
    what: {
      decision: CallOutcome;
      code: string | null;
      rule: Rule | null;
      reason: string;
      warnings: string[];
      approval: () => ApprovalRecord | undefined;
    },
  ): boolean {
    return this.record(() => {
      // Written out rather than spread together: this runs once per audited call.
      const digest = argumentsDigest(call.args);
      const event: ToolCallEvent = {
        time: new Date().toISOString(),
        session: this.options.session,
        policy_digest: this.gate.policyDigest,
        request_id: call.forward.id,
        event: "tools/call",
        tool: call.name,
        decision: what.decision,
        code: what.code,
        rule: auditRule(what.rule),
        reason: what.reason,
        warnings: what.warnings,
        args_sha256: digest.sha256,
      };
      if (!digest.canonical) event.args_canonical = false;
      const r = redaction();
      if (r.contract !== null) event.args_redacted = r.shownArguments();
      const approval = what.approval();
      if (approval !== undefined) event.approval = approval;
      return event;
    });
  }

  private callVerdict(
    call: CallInHand,
    counters: SessionCounters,
    catalogProblem: string | null,
  ): CallVerdict {
    const { name, definition } = call;
    if (catalogProblem !== null) {
      return {
        kind: "deny",
        code: "E_CATALOG_UNAVAILABLE",
        reason: catalogProblem,
        rule: null,
        violations: [],
        by: "toolgate",
        shownToClient: false,
      };
    }
    if (definition === undefined) {
      return {
        kind: "hidden",
        code: null,
        reason: `tool '${name}' is not in the server's catalog`,
        rule: null,
      };
    }
    const visibility = this.gate.visibility(definition, this.catalogToolContext(name));
    if (!visibility.visible) {
      // A tool withheld for drift that the client was shown before: the model knows it exists, so say why.
      const shownBefore = visibility.code === "E_TOOL_DRIFT" && this.shownTools.has(name);
      if (visibility.explain || shownBefore) {
        const code = visibility.code ?? "E_TOOL_NOT_ALLOWED";
        return {
          kind: "deny",
          code,
          reason: visibility.reason,
          rule: visibility.rule,
          violations: [],
          by: "policy",
          shownToClient: shownBefore,
        };
      }
      return { kind: "hidden", code: visibility.code, reason: visibility.reason, rule: visibility.rule };
    }
    const decision = this.gate.decideCall(name, call.args, counters, this.callContext(call));
    if (decision.decision === "deny") {
      const code = decision.code ?? "E_TOOL_DENIED";
      return {
        kind: "deny",
        code,
        reason: decision.reason,
        rule: decision.rule,
        violations: decision.violations,
        by: "policy",
        shownToClient: true,
      };
    }
    const plan = planObligations(
      decision,
      this.clientCanElicit ? null : "the client did not declare form-mode elicitation in initialize",
    );
    switch (plan.kind) {
      case "refuse": {
        const denied: CallVerdict = {
          kind: "deny",
          code: plan.code,
          reason: plan.reason,
          rule: plan.rule,
          violations: [],
          by: "policy",
          shownToClient: true,
        };
        if (plan.artifactProblem !== undefined) {
          denied.rejected = {
            problem: plan.artifactProblem,
            ...(plan.artifactDigest === undefined ? {} : { digest: plan.artifactDigest }),
          };
        }
        return denied;
      }
      case "ask":
        return {
          kind: "allow",
          reason: decision.reason,
          rule: decision.rule,
          warnings: decision.warnings,
          ask:
            plan.rejected === undefined ? { rule: plan.rule } : { rule: plan.rule, rejected: plan.rejected },
        };
      case "forward": {
        const allowed: CallVerdict = {
          kind: "allow",
          reason: decision.reason,
          rule: decision.rule,
          warnings: decision.warnings,
        };
        if (plan.approval !== undefined) allowed.approval = plan.approval;
        return allowed;
      }
    }
  }

  /** What the decision knows beyond name and arguments: the artifact, the server's schema, the filesystem. */
  private callContext(call: CallInHand): CallContext | undefined {
    const context: CallContext = {};
    if (call.lookup.kind === "found") context.approval = call.lookup.artifact;
    else if (call.lookup.kind === "conflict") context.approvalProblem = call.lookup.reason;
    if (call.definition?.inputSchema !== undefined) context.inputSchema = call.definition.inputSchema;
    if (this.options.realpath !== undefined) context.realpath = this.options.realpath;
    return context;
  }

  /** Every `tools/list` answer the client asked for, every page: only visible tools (cursors untouched). */
  private filterList(response: JsonRpcResponse, text: string | undefined): void {
    if (response.error !== undefined) {
      this.peers.toClient(response);
      return;
    }
    const result = response.result;
    if (!isJsonObject(result) || !Array.isArray(result.tools)) {
      this.options.log(
        "the server's tools/list result has no tools array; answered the client with an error",
      );
      this.peers.toClient(
        errorResponse(
          response.id,
          INTERNAL_ERROR,
          "toolgate: the server's tools/list result is malformed (no tools array)",
        ),
      );
      return;
    }
    const shown: unknown[] = [];
    const hidden: HiddenTool[] = [];
    const serverId = this.serverId();
    let schemaTexts: Map<string, string> | undefined;
    const exactText = (name: string): string | undefined => {
      if (schemaTexts === undefined) {
        schemaTexts = new Map();
        if (text !== undefined) {
          try {
            schemaTexts = extractToolSchemaTexts(text);
          } catch (error) {
            this.options.log(
              `cannot read exact schema texts from the tools/list answer: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }
      }
      return schemaTexts.get(name);
    };
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") {
        // Nothing to decide on: never shown, even in a dry run.
        hidden.push({ tool: "(malformed entry)", code: null, rule: null });
        continue;
      }
      const name = tool.name;
      const context: ToolContext = { listed: true, exactSchemaText: () => exactText(name) };
      if (serverId !== undefined) context.serverId = serverId;
      const verdict = this.gate.visibility(tool as ListedTool, context);
      if (verdict.visible || this.dryRun) {
        shown.push(tool);
        this.shownTools.add(name);
      }
      if (!verdict.visible)
        hidden.push({ tool: tool.name, code: verdict.code, rule: auditRule(verdict.rule) });
    }
    const recorded = this.record(() => ({
      ...this.eventBase(response.id),
      event: "tools/list",
      decision: this.dryRun ? "would-filter" : "filtered",
      shown: shown.length,
      hidden: hidden.length,
      hidden_tools: hidden,
    }));
    if (this.options.verbose === true) {
      const names = hidden.map((h) => `${h.tool}${h.code === null ? "" : ` ${h.code}`}`).join(", ");
      this.options.log(
        `tools/list: ${shown.length} shown, ${hidden.length} ${this.dryRun ? "would be hidden" : "hidden"}${names === "" ? "" : ` (${names})`}`,
      );
    }
    if (!recorded) {
      this.peers.toClient(
        errorResponse(
          response.id,
          INTERNAL_ERROR,
          "toolgate: E_AUDIT_WRITE the audit log could not be written; tool list withheld",
        ),
      );
      return;
    }
    this.peers.toClient({ ...response, result: { ...result, tools: shown } });
  }

  private eventBase(requestId: JsonRpcId | null): {
    time: string;
    session: string;
    policy_digest: string | null;
    request_id: JsonRpcId | null;
  } {
    return {
      time: new Date().toISOString(),
      session: this.options.session,
      policy_digest: this.gate.policyDigest,
      request_id: requestId,
    };
  }

  /**
   * `false` when the event could not be written (the caller then refuses what it was about to forward).
   * The event is built only when there is a log to write it to: the hot path without `--audit-log` pays
   * for neither the timestamp nor the argument digest.
   */
  private record(event: () => AuditEvent): boolean {
    if (this.options.audit === null) return true;
    try {
      this.options.audit.write(event());
      return true;
    } catch (error) {
      this.options.log(`E_AUDIT_WRITE ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  private verbose(line: string): void {
    if (this.options.verbose === true) this.options.log(line);
  }
}

function hasOutputSchema(definition: ListedTool | undefined): boolean {
  return definition !== undefined && definition.outputSchema !== undefined;
}

function approvalRequiredText(tool: string, rule: Rule): string {
  return `tool '${tool}' requires approval (tools.approval_required '${rule.value}')`;
}

export function notApprovedText(
  outcome: Exclude<ApprovalOutcome, { approved: true }>["outcome"],
  timeoutMs: number,
): string {
  switch (outcome) {
    case "decline":
      return "the person declined";
    case "cancel":
      return "the person dismissed the question (cancel)";
    case "not-approved":
      return "the person accepted the form without approving";
    case "timeout":
      return `no answer came within ${Math.round(timeoutMs / 1000)} s (--approval-timeout)`;
    case "client-cancelled":
      return "the client cancelled the call while the person was being asked";
    case "error":
      return "asking the person failed";
  }
}

/**
 * The audit record of a call's approval: the artifact that came with it (accepted, rejected or not
 * checked), and what the person answered when asked. `undefined` when there is neither.
 */
export function approvalRecord(
  lookup: ApprovalLookup,
  checked: ApprovalEvidence | RejectedArtifact | undefined,
  elicitation: ApprovalRecord["elicitation"],
  redaction: CallRedaction,
): ApprovalRecord | undefined {
  const record: ApprovalRecord = {};
  if (lookup.kind === "conflict") {
    record.artifact = { accepted: false, source: "both", problem: lookup.reason };
  } else if (lookup.kind === "found") {
    if (checked !== undefined && "summary" in checked) {
      record.artifact = {
        accepted: true,
        source: lookup.source,
        digest: checked.digest,
        profile: checked.profile,
        summary: { ...checked.summary },
      };
    } else {
      const problem =
        checked === undefined
          ? "not checked: the call was decided before (or without) its approval step; the artifact was stripped"
          : redaction.scrub(checked.problem);
      let digest = checked?.digest;
      if (digest === undefined) {
        try {
          digest = approvalDigest(lookup.artifact);
        } catch {
          // No RFC 8785 form: recorded without a digest.
        }
      }
      record.artifact = { accepted: false, source: lookup.source, problem };
      if (digest !== undefined) {
        record.artifact.digest = digest;
        record.artifact.profile = APPROVAL_DIGEST_PROFILE;
      }
    }
  }
  if (elicitation !== undefined) record.elicitation = elicitation;
  return record.artifact === undefined && record.elicitation === undefined ? undefined : record;
}

function ruleText(rule: Rule | null): string {
  return rule === null ? "" : ` [${rule.layer} ${rule.kind} ${rule.value}]`;
}
