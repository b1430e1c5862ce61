import { localPrincipal } from "../engine/model/principal.js";
import type { AuditSink } from "../audit/sink.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import type { RealpathHook } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { InboundFrame } from "../engine/rpc/frames.js";
import type { FrameEnvelope } from "../engine/rpc/frameEnvelope.js";
import { readFrame, refusalId } from "../engine/rpc/inbound.js";
import {
  errorResponse,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import { clientElicitsForms } from "../session/clientCapabilities.js";
import type { ServerView } from "../session/serverView.js";
import { ToolCatalog, type CatalogSnapshot } from "../session/toolCatalog.js";
import { ToolSession, type ToolSessionOptions } from "../session/toolSession.js";
import { sdkUnknownToolAnswer } from "../session/unknownToolAnswer.js";
import { ApprovalAsker } from "./approvalAsker.js";
import { PrivateRequests } from "./privateRequests.js";
import { WrapEra } from "./wrapEra.js";
import { ListFilter } from "./listFilter.js";
import { ServerReadiness } from "./serverReadiness.js";
import { ServerNameWatch } from "./serverNameWatch.js";
import { ServerListen } from "./serverListen.js";
import { StartupWatch } from "./startupWatch.js";
import { ArrivalQueue } from "./arrivalQueue.js";
import { ApprovalRounds } from "../session/approvalRounds.js";
import { CallAnswers, shapedResponse } from "./callAnswers.js";
import { runCall, type CallPort } from "../session/runCall.js";
import { MemoryApprovalClaims, type ApprovalClaims } from "../session/approvalClaims.js";
import { RequestStateCodec } from "../engine/protocol/requestState.js";

export interface PolicyProxyOptions extends Pick<
  ToolSessionOptions,
  "metrics" | "auditArguments" | "dryRun" | "verbose"
> {
  gate: ToolGate;
  /** `null`: no audit log. */
  audit: AuditSink | null;
  /** Session label recorded in every audit event. */
  session: string;
  /** Diagnostics: dropped frames, failed catalog fetches, decisions when verbose. One line, no newline. */
  log: (line: string) => void;
  /** Bound on each request toolgate sends on its own (catalog pages, the probe) and on waiting for them. */
  privateRequestTimeoutMs?: number;
  /** Called each time toolgate has fetched the server's full catalog (wrap's self-test runs over it). */
  onCatalog?: (snapshot: CatalogSnapshot) => void;
  /**
   * The server as `tool_pins` entries name it (`server_id`) and as approval questions show it. Absent: pins
   * apply by tool name alone, and questions show the `serverInfo.name` the server gives itself. That name
   * never decides which pins apply: the server controls it.
   */
  serverId?: string;
  /** `serverId` is the one server the pins name (no --server or --label): a server giving another name is reported. */
  serverIdFromPins?: boolean;
  /** How long a call that needs approval waits for the person's answer (default 120 s). */
  approvalTimeoutMs?: number;
  /** Resolves symbolic links for `restrict_scope` contracts with `realpath: true` (the server shares our filesystem). */
  realpath?: RealpathHook;
  /** The keys approval artifacts must be signed with and the store their ids are spent in; absent: none. */
  approvals?: { keys: ApprovalKeyring; claims: ApprovalClaims };
  /** Signs the requestState of toolgate's approval questions in the modern era (default: a key of its own). */
  requestStates?: RequestStateCodec;
  /**
   * How long the server may take to answer the first request it is sent (`--startup-timeout`, or the
   * entry's `startup_timeout`); past it, it is taken for a server that did not start. Default 60 s.
   */
  startupTimeoutMs?: number;
  /** How the start-up limit is named in the message when it is reached (`--startup-timeout`, …). */
  startupSetting?: string;
}

/** Where the proxy's output goes; the transport serializes (JSON.stringify of the object given). */
export interface ProxyPeers {
  toServer(message: JsonRpcMessage): void;
  toClient(message: JsonRpcMessage): void;
}
const DEFAULT_PRIVATE_TIMEOUT_MS = 10_000;
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
const RESERVED_ID = "Invalid Request: this id is reserved by toolgate; use another";
/** How long a wrap whose server did not start waits for the host's `initialize`, to answer it. */
const UNAVAILABLE_WAIT_MS = 5000;

/**
 * The policy proxy between one MCP client and one MCP server: a raw frame proxy over the session core. Every
 * frame is parsed strictly and checked; what is forwarded is the checked object. Every decision (limits,
 * lists, calls, approvals, the audit record) is the {@link ToolSession}'s; the proxy only knows the
 * protocol's shape: the handshake, which answers belong to which request, its own private requests (the
 * catalog, the unknown-tool probe, approval questions), and passing everything else through unchanged.
 *
 * Client requests and notifications are handled in arrival order: when a call has to wait (for the
 * catalog or the unknown-tool answer), later ones queue behind it. Client responses to server requests
 * never wait, so a server that needs an answer before it can serve the catalog cannot deadlock us.
 */
export class PolicyProxy {
  private readonly session: ToolSession;
  private readonly server: ServerView;
  private readonly privateRequests: PrivateRequests;
  private readonly catalog: ToolCatalog;
  private readonly timeoutMs: number;
  private readonly approvals: ApprovalAsker;
  private readonly era = new WrapEra();
  private readonly nameWatch: ServerNameWatch;
  private readonly lists: ListFilter;
  private readonly readiness: ServerReadiness;
  /** Approval in the modern era: toolgate's own input_required question and its retries. */
  private readonly rounds: ApprovalRounds;
  /** Client `server/discover` requests awaiting the server's answer. */
  private readonly discoverIds = new Set<JsonRpcId>();
  /** The server's answers to forwarded calls: an approval carried on (modern era), the receipt added. */
  private readonly callAnswers: CallAnswers;

  /** The client declared form-mode elicitation in `initialize`: approvals can be asked. */
  private clientCanElicit = false;
  /** Client `initialize` requests awaiting the server's answer (its capabilities decide the catalog). */
  private readonly initializeIds = new Set<JsonRpcId>();
  /** Client `tools/list` requests awaiting the server's answer: only these answers are filtered. */
  private readonly pendingLists = new Set<JsonRpcId>();

  /**
   * Ids of client requests not answered yet (by the server or by toolgate). A request reusing one is refused,
   * so every answer belongs to exactly one request; an answer from the server to an id not in here (a second
   * answer) is dropped.
   */
  private readonly clientPending = new Set<JsonRpcId>();

  private readonly arrivals = new ArrivalQueue<JsonRpcRequest | JsonRpcNotification>(
    (message) => this.handleClientMessage(message),
    (message, error) => this.internalError(message, error),
  );

  constructor(
    private readonly options: PolicyProxyOptions,
    private readonly peers: ProxyPeers,
  ) {
    this.timeoutMs = options.privateRequestTimeoutMs ?? DEFAULT_PRIVATE_TIMEOUT_MS;
    this.nameWatch = new ServerNameWatch(options.serverId, options.serverIdFromPins === true, options.log);
    const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.session = new ToolSession({
      identity: { session: options.session },
      audit: options.audit,
      limits: options.gate,
      dryRun: options.dryRun === true,
      auditArguments: options.auditArguments === true,
      verbose: options.verbose === true,
      approvalTimeoutMs,
      log: options.log,
      // wrap's one client: an artifact bound to 'stdio' approves its calls.
      principal: localPrincipal("stdio"),
      approvalWays: { surface: "wrap" },
      ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
      metrics: options.metrics,
    });
    this.server = {
      gate: options.gate,
      name: null,
      serverId: () => options.serverId,
      shownName: () => options.serverId ?? this.reportedName(),
      ...(options.realpath === undefined ? {} : { realpath: options.realpath }),
    };
    this.privateRequests = new PrivateRequests((request) => peers.toServer(request), this.timeoutMs);
    this.approvals = new ApprovalAsker((message) => this.toClient(message), approvalTimeoutMs);
    this.rounds = new ApprovalRounds({
      codec: options.requestStates ?? RequestStateCodec.ephemeral(),
      claims: options.approvals?.claims ?? new MemoryApprovalClaims(),
      principal: options.session,
      ttlMs: approvalTimeoutMs,
    });
    this.callAnswers = new CallAnswers(this.rounds);
    this.catalog = new ToolCatalog(
      async (cursor) => {
        const { response, text } = await this.privateRequests.start(
          "tools/list",
          this.era.ownParams(cursor === undefined ? {} : { cursor }),
        ).answer;
        if (response.error !== undefined) {
          throw new Error(`tools/list answered error ${response.error.code}: ${response.error.message}`);
        }
        return { result: response.result, text };
      },
      options.log,
      (snapshot) => {
        this.nameWatch.note(this.reportedName());
        options.onCatalog?.(snapshot);
        this.session.catalogFetched(this.server, snapshot);
      },
    );
    this.lists = new ListFilter({
      session: this.session,
      server: this.server,
      catalog: this.catalog,
      era: this.era,
      options,
      toServer: (message) => peers.toServer(message),
      toClient: (message) => this.toClient(message),
    });
    this.startupMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    this.readiness = new ServerReadiness({
      catalog: this.catalog,
      privateRequests: this.privateRequests,
      era: this.era,
      // A call made before the server has answered waits for it as long as a start may take.
      timeoutMs: Math.max(this.timeoutMs, this.startupMs),
      startupTimeoutMs: this.startupMs,
      listen: new ServerListen({
        privateRequests: this.privateRequests,
        era: this.era,
        onToolsChanged: () => this.toolsChanged(),
        log: options.log,
      }),
      log: options.log,
    });
    this.startup = new StartupWatch({
      timeoutMs: this.startupMs,
      serverId: options.serverId,
      setting: options.startupSetting,
      log: options.log,
      expired: (message) => void this.serverUnavailable(message),
    });
  }

  /**
   * A reload put a new policy in force: the client is told its tools may have changed (the legacy era, after
   * the handshake). A modern client has no session to tell; its next list and every call are decided anew.
   */
  policyReloaded(): void {
    if (this.era.era === "legacy" && this.readiness.started)
      this.toClient({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  }

  /** The server's tools changed: calls wait for a fresh catalog (a drifted tool is caught before its call). */
  private toolsChanged(): void {
    this.catalog.markStale();
    if (this.readiness.started) void this.catalog.refresh();
  }

  private readonly startupMs: number;
  private readonly startup: StartupWatch;

  /** Stops the start-up watch (the proxy closes). */
  stopWatching(): void {
    this.startup.stop();
  }

  /** The name the server gives itself (initialize, else server/discover): shown, never trusted. */
  private reportedName(): string | undefined {
    return this.readiness.serverName ?? this.era.serverName;
  }

  /** Set when the server could not be started: every request is answered with it. */
  private unavailable: { message: string; answeredInitialize: () => void } | null = null;

  serverUnavailable(message: string): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, UNAVAILABLE_WAIT_MS);
      timer.unref();
      const answeredInitialize = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.unavailable = { message, answeredInitialize };
      for (const id of [...this.clientPending]) {
        const wasInitialize = this.initializeIds.delete(id);
        this.toClient(errorResponse(id, INTERNAL_ERROR, `toolgate: ${message}`));
        if (wasInitialize) answeredInitialize();
      }
    });
  }

  /** One frame from the client. */
  fromClient(frame: InboundFrame): void {
    const inbound = readFrame(frame);
    if (!inbound.ok) {
      this.options.log(`rejected a client frame (${inbound.problem}): ${inbound.message}`);
      // Answered under the frame's own id when it is a request with one unambiguous id, so the client does not
      // wait for its timeout; otherwise under null. A refused frame never counts as a request in flight.
      const id = refusalId(inbound);
      this.toClient(
        errorResponse(id !== null && !this.clientPending.has(id) ? id : null, inbound.code, inbound.message),
      );
      return;
    }
    if (inbound.kind === "response") {
      const id = (inbound.message as JsonRpcResponse).id;
      if (this.approvals.owns(id)) this.approvals.settle(id, inbound.message as JsonRpcResponse);
      else this.peers.toServer(inbound.message);
      return;
    }
    const message = inbound.message as JsonRpcRequest | JsonRpcNotification;
    if (this.unavailable !== null) {
      if (inbound.kind !== "request") return;
      this.toClient(
        errorResponse(
          (message as JsonRpcRequest).id,
          INTERNAL_ERROR,
          `toolgate: ${this.unavailable.message}`,
        ),
      );
      if (message.method === "initialize") this.unavailable.answeredInitialize();
      return;
    }
    if (inbound.kind === "request") {
      const id = (message as JsonRpcRequest).id;
      if (this.clientPending.has(id)) {
        this.options.log(
          `refused a client request reusing the id ${JSON.stringify(id)} of a request in flight`,
        );
        this.toClient(
          errorResponse(
            null,
            INVALID_REQUEST,
            `Invalid Request: the id ${JSON.stringify(id)} belongs to a request still in flight; use a new id`,
          ),
        );
        return;
      }
      this.clientPending.add(id);
      if (this.unavailable === null) this.startup.arm();
    }
    this.arrivals.push(message);
  }

  /** One frame from the server. */
  fromServer(frame: InboundFrame): void {
    this.startup.heard();
    const inbound = readFrame(frame);
    if (!inbound.ok) {
      this.options.log(`dropped a server frame (${inbound.problem}): ${inbound.message}`);
      this.refusedServerFrame(
        inbound.envelope,
        `toolgate refused the server's answer (${inbound.problem}): ${inbound.message}`,
      );
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
      if (id === null || !this.clientPending.has(id)) {
        this.options.log(
          `dropped an answer from the server to ${id === null ? "no request" : `the request ${JSON.stringify(id)}, which is not in flight (a second answer?)`}`,
        );
        return;
      }
      if (this.initializeIds.delete(id)) this.readiness.noteInitialize(response);
      else if (this.discoverIds.delete(id)) this.readiness.noteDiscover(response);
      else if (this.pendingLists.delete(id)) {
        this.lists.filter(response, text);
        return;
      }
      this.toClient(this.callAnswers.answer(response));
      return;
    }
    const message = inbound.message as JsonRpcRequest | JsonRpcNotification;
    if (inbound.kind === "request" && this.approvals.owns((message as JsonRpcRequest).id)) {
      // The client's answer would be taken for the answer to one of toolgate's approval questions.
      this.options.log("refused a server request whose id is inside toolgate's private namespace");
      this.peers.toServer(errorResponse((message as JsonRpcRequest).id, INVALID_REQUEST, RESERVED_ID));
      return;
    }
    if (inbound.kind === "notification" && this.readiness.listens(message)) return;
    if (inbound.kind === "notification" && message.method === "notifications/tools/list_changed")
      this.toolsChanged();
    this.toClient(message);
  }

  /**
   * A server frame that was refused still settles what it answers: a response under an id in flight gets the
   * refusal as its error (the client does not wait for its timeout), one to toolgate's own request fails
   * it, and a request is answered with the refusal so the server does not wait either.
   */
  private refusedServerFrame(envelope: FrameEnvelope, message: string): void {
    const id = envelope.id;
    if (id === null) return;
    if (envelope.hasMethod) {
      this.peers.toServer(errorResponse(id, INVALID_REQUEST, message));
    } else if (this.privateRequests.owns(id)) {
      this.privateRequests.settle(id, errorResponse(id, INTERNAL_ERROR, message));
    } else if (this.clientPending.has(id)) {
      this.pendingLists.delete(id);
      this.initializeIds.delete(id);
      this.toClient(errorResponse(id, INTERNAL_ERROR, message));
    }
  }

  /** Everything for the client goes through here: an answer ends its request's time in flight. */
  private toClient(message: JsonRpcMessage): void {
    if (!("method" in message) && message.id !== null) this.clientPending.delete(message.id);
    this.peers.toClient("method" in message ? message : this.lists.items.answer(message));
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
    return this.arrivals.idle();
  }

  /** Fails closed: a request we could not handle is answered with an error, never forwarded. */
  private internalError(message: JsonRpcRequest | JsonRpcNotification, error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    this.options.log(`internal error handling ${message.method}: ${text}`);
    if (isRequest(message)) {
      this.toClient(
        errorResponse(message.id, INTERNAL_ERROR, `toolgate internal error; request not forwarded: ${text}`),
      );
    }
  }

  private handleClientMessage(message: JsonRpcRequest | JsonRpcNotification): Promise<void> | undefined {
    if (!isRequest(message)) {
      if (message.method === "notifications/cancelled" && this.cancelPendingApproval(message))
        return undefined;
      this.peers.toServer(message);
      if (message.method === "notifications/initialized") this.readiness.start();
      return undefined;
    }
    const request = message;
    if (this.privateRequests.owns(request.id)) {
      this.toClient(errorResponse(request.id, INVALID_REQUEST, RESERVED_ID));
      return undefined;
    }
    const reading = this.era.read(request);
    if (!reading.ok) {
      this.options.log(`refused ${request.method}: ${reading.error.message}`);
      this.session.refusedRequest(request.id, request.method, reading.error.message);
      this.toClient({ jsonrpc: "2.0", id: request.id, error: reading.error });
      return undefined;
    }
    if (request.method === "server/discover") {
      this.discoverIds.add(request.id);
      this.peers.toServer(request);
      return undefined;
    }
    // The modern era has no handshake: toolgate learns what it needs when the first request comes.
    if (reading.era === "modern" && !this.readiness.started) this.readiness.startModern();
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
    const counters = this.session.countHere(false);
    const refused = this.session.limitRequest(request.id, request.method, counters);
    if (refused !== null) {
      this.toClient({ jsonrpc: "2.0", id: request.id, error: refused });
      return undefined;
    }
    if (request.method === "tools/list") this.pendingLists.add(request.id);
    this.lists.items.send(request);
    return undefined;
  }

  private handleToolCall(request: JsonRpcRequest): Promise<void> | undefined {
    const params = request.params ?? {};
    const name = params.name;
    if (typeof name !== "string") {
      this.options.log("refused a tools/call without a string params.name");
      this.toClient(
        errorResponse(request.id, INVALID_PARAMS, "Invalid params: tools/call needs params.name, a string"),
      );
      return undefined;
    }
    // In order: synchronous unless the retry's state or the server's readiness had to be waited for.
    const handled = runCall(
      this.session,
      this.rounds,
      { requestId: request.id, params, calledAs: name, args: params.arguments },
      this.callPort(request, name),
    );
    return handled instanceof Promise ? handled : undefined;
  }

  /** What the call flow needs of wrap for one call: its one server, its frames and its client's person. */
  private callPort(request: JsonRpcRequest, name: string): CallPort {
    return {
      era: this.era.era === "modern" ? "modern" : "legacy",
      asksOutOfBand: false,
      cannotAsk: this.cannotAsk(),
      resolve: (params) => ({
        server: this.server,
        tool: name,
        params,
        definitionShown: true,
        // The catalog decides, once the server is ready for it.
        before: () =>
          this.readiness.ready
            ? this.catalog.current()
            : this.readiness.whenReady().then(() => this.catalog.current()),
        fetchCatalog: null,
        absent: (answered) =>
          this.toClient(
            shapedResponse(
              (this.readiness.unknownAnswer ?? sdkUnknownToolAnswer()).answer(request.id, name),
              answered,
            ),
          ),
      }),
      // wrap's one session counts in memory: nothing to fail.
      uncounted: (reason, receipt) =>
        this.session.uncountedCall(request.id, this.server, name, reason, request.params?.arguments, receipt),
      forward: (params, approved, _failed, answered) => {
        this.callAnswers.forwarded(request.id, approved, answered);
        this.peers.toServer(params === request.params ? request : { ...request, params });
      },
      ask: (question) => this.approvals.ask(request.id, question),
      answer: (result) =>
        this.toClient({ jsonrpc: "2.0", id: request.id, result: this.era.ownResult("tools/call", result) }),
      error: (code, message, data) => this.toClient(errorResponse(request.id, code, message, data)),
      withdrawn: () => undefined,
      failed: (error) => this.internalError(request, error),
    };
  }

  /** `null` when the client's person can be asked: form-mode elicitation (initialize's, or this request's). */
  private cannotAsk(): string | null {
    const modern = this.era.era === "modern";
    const capabilities = this.era.capabilities();
    if (modern ? clientElicitsForms({ capabilities: capabilities ?? {} }) : this.clientCanElicit) return null;
    return modern
      ? "the client did not declare form-mode elicitation in this request's capabilities"
      : "the client did not declare form-mode elicitation in initialize";
  }

  /** `notifications/cancelled` for a call waiting for its approval: withdraw the question; the server never saw the call. */
  private cancelPendingApproval(message: JsonRpcNotification): boolean {
    const requestId = message.params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return false;
    return this.approvals.cancelCall(requestId);
  }
}
