import { argumentsDigest } from "../audit/argsDigest.js";
import {
  auditRule,
  type AuditEvent,
  type CallOutcome,
  type HiddenTool,
  type ToolCallEvent,
} from "../audit/events.js";
import type { AuditSink } from "../audit/sink.js";
import type { Rule, SessionCounters, Violation } from "../policy/decision.js";
import type { ToolGate } from "../policy/gate.js";
import { denyResponse } from "./denyResult.js";
import type { InboundFrame } from "./frames.js";
import { readFrame } from "./inbound.js";
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
} from "./jsonRpc.js";
import { unmetObligation } from "./obligations.js";
import { PrivateRequests } from "./privateRequests.js";
import { ToolCatalog, type ListedTool } from "./toolCatalog.js";
import {
  learnedUnknownToolAnswer,
  probeToolName,
  sdkUnknownToolAnswer,
  type UnknownToolAnswer,
} from "./unknownToolAnswer.js";

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
}

/** Where the proxy's output goes; the transport serializes (JSON.stringify of the object given). */
export interface ProxyPeers {
  toServer(message: JsonRpcMessage): void;
  toClient(message: JsonRpcMessage): void;
}

type CallVerdict =
  | { kind: "allow"; reason: string; rule: Rule | null; warnings: string[] }
  | {
      kind: "deny";
      code: string;
      reason: string;
      rule: Rule | null;
      violations: readonly Violation[];
      by: "policy" | "toolgate";
      /** The tool is visible, so the client has its definition (and may validate against its outputSchema). */
      shownToClient: boolean;
    }
  | { kind: "hidden"; code: string | null; reason: string; rule: Rule | null };

const DEFAULT_PRIVATE_TIMEOUT_MS = 10_000;

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

  private readonly counters: SessionCounters = { requests: 0, toolCalls: 0 };
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
    this.catalog = new ToolCatalog(
      (cursor) => this.privateRequests.request("tools/list", cursor === undefined ? {} : { cursor }),
      options.log,
      options.onCatalog === undefined ? undefined : (tools) => options.onCatalog!([...tools.keys()]),
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
      this.peers.toServer(inbound.message);
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
      if (this.privateRequests.owns(id)) {
        this.privateRequests.settle(id, response);
        return;
      }
      if (id !== null && this.initializeIds.delete(id)) this.noteInitializeResult(response);
      else if (id !== null && this.pendingLists.delete(id)) {
        this.filterList(response);
        return;
      }
      this.peers.toClient(response);
      return;
    }
    const message = inbound.message as JsonRpcRequest | JsonRpcNotification;
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
  }

  private decideToolCall(request: JsonRpcRequest, name: string, counters: SessionCounters): void {
    const args = request.params?.arguments;
    const listed = this.catalog.current();
    const definition = listed.ok ? listed.tools.get(name) : undefined;
    const verdict = this.callVerdict(name, args, counters, listed.ok ? null : listed.reason, definition);

    const outcome: CallOutcome = this.dryRun
      ? verdict.kind === "allow"
        ? "allow"
        : verdict.kind === "deny"
          ? "would-deny"
          : "would-hide"
      : verdict.kind;
    const code = verdict.kind === "allow" ? null : verdict.code;
    const recorded = this.record(() => {
      // Written out rather than spread together: this runs once per audited call.
      const digest = argumentsDigest(args);
      const event: ToolCallEvent = {
        time: new Date().toISOString(),
        session: this.options.session,
        policy_digest: this.gate.policyDigest,
        request_id: request.id,
        event: "tools/call",
        tool: name,
        decision: outcome,
        code,
        rule: auditRule(verdict.rule),
        reason: verdict.reason,
        warnings: verdict.kind === "allow" ? verdict.warnings : [],
        args_sha256: digest.sha256,
      };
      if (!digest.canonical) event.args_canonical = false;
      return event;
    });
    if (this.options.verbose === true) {
      this.options.log(
        `tools/call ${name}: ${outcome}${code === null ? "" : ` ${code}`} — ${verdict.reason}${ruleText(verdict.rule)}`,
      );
    }

    if (verdict.kind === "allow" || this.dryRun) {
      if (recorded) this.peers.toServer(request);
      else {
        this.peers.toClient(
          denyResponse(request.id, {
            tool: name,
            code: "E_AUDIT_WRITE",
            reason: "the audit log could not be written, so the call was not forwarded",
            violations: [],
            by: "toolgate",
            omitStructuredContent: hasOutputSchema(definition),
          }),
        );
      }
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
        reason: verdict.reason,
        violations: verdict.violations,
        by: verdict.by,
        // A tool the client was never shown has no output schema on the client's side.
        omitStructuredContent: verdict.shownToClient && hasOutputSchema(definition),
      }),
    );
  }

  private callVerdict(
    name: string,
    args: unknown,
    counters: SessionCounters,
    catalogProblem: string | null,
    definition: ListedTool | undefined,
  ): CallVerdict {
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
    const visibility = this.gate.visibility(definition);
    if (!visibility.visible) {
      if (visibility.explain) {
        const code = visibility.code ?? "E_TOOL_NOT_ALLOWED";
        return {
          kind: "deny",
          code,
          reason: visibility.reason,
          rule: visibility.rule,
          violations: [],
          by: "policy",
          shownToClient: false,
        };
      }
      return { kind: "hidden", code: visibility.code, reason: visibility.reason, rule: visibility.rule };
    }
    const decision = this.gate.decideCall(name, args, counters);
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
    const unmet = unmetObligation(decision);
    if (unmet !== null) {
      return {
        kind: "deny",
        code: unmet.code,
        reason: unmet.reason,
        rule: unmet.rule,
        violations: [],
        by: "policy",
        shownToClient: true,
      };
    }
    return { kind: "allow", reason: decision.reason, rule: decision.rule, warnings: decision.warnings };
  }

  /** Every `tools/list` answer the client asked for, every page: only visible tools (cursors untouched). */
  private filterList(response: JsonRpcResponse): void {
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
    for (const tool of result.tools) {
      if (!isJsonObject(tool) || typeof tool.name !== "string") {
        // Nothing to decide on: never shown, even in a dry run.
        hidden.push({ tool: "(malformed entry)", code: null, rule: null });
        continue;
      }
      const verdict = this.gate.visibility(tool as ListedTool);
      if (verdict.visible || this.dryRun) shown.push(tool);
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

function ruleText(rule: Rule | null): string {
  return rule === null ? "" : ` [${rule.layer} ${rule.kind} ${rule.value}]`;
}
