import type { McpServerConfig } from "../engine/model/mcpServers.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import { denyResult, LIST_NOT_RECORDED, type ToolResult } from "../session/answers.js";
import type { ApprovalOutcome } from "../session/approvalQuestion.js";
import { INVALID_PARAMS } from "../engine/rpc/jsonRpc.js";
import { runCall, type CallPort, type CallRequest, type CallTarget } from "../session/runCall.js";
import type { ServerView } from "../session/serverView.js";
import type { CatalogState } from "../session/toolCatalog.js";
import { uncountedReason, type ToolSession } from "../session/toolSession.js";
import { sdkUnknownToolAnswer } from "../session/unknownToolAnswer.js";
import type { SecretScrubber } from "../upstream/serverSecrets.js";
import type { UpstreamLink } from "../upstream/upstreamLink.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
import {
  describeResult,
  invalidArgumentsResult,
  metaToolDefinitions,
  notInCatalogResult,
  readMetaArguments,
  searchResult,
} from "./metaTools.js";
import {
  assertDistinctNames,
  exposedName,
  metaToolName,
  parseMetaToolName,
  splitExposedName,
} from "./naming.js";
import { RelayedError } from "./relay.js";
import { searchTools } from "./search.js";
import type { ServeMode } from "./serveMode.js";
import { rewriteToolResult } from "./uriRewrite.js";
import type { Era } from "../engine/protocol/eras.js";
import { paramHeaderMismatch, type HeaderBag } from "../engine/protocol/mirroredHeaders.js";
import type { ApprovalRounds } from "../session/approvalRounds.js";

type Json = Record<string, unknown>;

const MODEL_NAME_MAX = 64;
const MODEL_NAME = /^[A-Za-z0-9_-]+$/;

export interface ServerSlot {
  name: string;
  config: McpServerConfig;
  link: UpstreamLink;
  /** The server as the session decides about it (gate, audit name, realpath). */
  view: ServerView;
  /** Scrubs what the operator configured for reaching the server from what is relayed about it. */
  secrets: SecretScrubber;
}

/** What the router needs of one in-flight client request (the SDK's handler extra, opaque here). */
export type RequestHandle = unknown;

export interface RouterDeps {
  mode: ServeMode;
  slots: ReadonlyMap<string, ServerSlot>;
  order: readonly string[];
  session: ToolSession;
  forward(slot: ServerSlot, method: string, params: Json, request: RequestHandle): Promise<Json>;
  /** `null` when the person behind this request's client can be asked (form-mode elicitation); else why not. */
  cannotAsk(request: RequestHandle): string | null;
  /** Puts an approval question to the client's person (MCP elicitation) while the call waits (legacy). */
  askApproval(
    question: JsonObject,
    request: RequestHandle,
    about: { tool: string; server: string | null },
  ): Promise<ApprovalOutcome>;
  /** The person is asked out of band (the dashboard): the call waits in this request, in either era. */
  asksOutOfBand(request: RequestHandle): boolean;
  /** The era the request speaks. */
  eraOf(request: RequestHandle): Era;
  /** A modern HTTP request's headers (mirroring parts of the body), else `undefined`. */
  headersOf(request: RequestHandle): HeaderBag | undefined;
  /** How long a tools/list waits for a server still starting before it answers without it. */
  listWaitMs: number;
  /** A tools/list answered without `server`, still starting: the client is to hear when it is up. */
  listedWithout(server: string): void;
  /** What the client was shown of a server's tools (direct mode's tools/list). */
  listed?(server: string, shown: readonly unknown[]): void;
  /** Approval in the modern era: toolgate's `input_required` question and the state of its retries. */
  rounds: ApprovalRounds;
  log(line: string): void;
}

/**
 * Tools in both modes, adapted to the session core: per server, the session decides which tools exist for
 * the client (`tools/list` in direct mode; search and describe in meta mode) and whether a call goes
 * through. The router only names (`<server>__<tool>`, the meta tools), fetches catalogs when the session
 * asks for one, puts questions to the person and forwards. A tool that is not visible is never forwarded,
 * and a call to it gets exactly the answer a missing tool gets: the MCP SDK's unknown-tool result (direct
 * mode, serve being an SDK server itself) or the spec's `<tool> not found in <server> MCP server catalog`
 * (meta mode).
 */
export class ToolRouter {
  private readonly unknownTool = sdkUnknownToolAnswer();
  /** Exposed names already warned about (once per session). */
  private readonly warnedNames = new Set<string>();

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
        slot.link.relist();
        const state = await this.catalogOrLate(slot);
        if (state === "late") {
          this.deps.listedWithout(server);
          this.deps.log(
            `tools/list: MCP server '${server}' is still starting: left out now, announced with tools/list_changed once it is up`,
          );
          return { slot, catalog: null };
        }
        if (state.ok) return { slot, catalog: state.snapshot };
        // A server that went down keeps its last catalog in the list (its calls answer "unavailable"
        // until it is back); one that never answered is left out.
        const known = slot.link.lastKnownTools;
        this.deps.log(
          `tools/list: MCP server '${server}' ${known === null ? "left out" : "listed from its last catalog"}: ${state.reason}`,
        );
        return { slot, catalog: known };
      }),
    );
    const shown: Json[] = [];
    for (const { slot, catalog } of perServer) {
      if (catalog === null) continue;
      const listed = this.deps.session.filterList({
        requestId,
        server: slot.view,
        tools: [...catalog.tools.values()],
        exactSchemaText: (name) => catalog.exactSchemaText(name),
        // `<server>__` alone names no tool.
        unshowable: (name) => name === "",
      });
      if (!listed.recorded) throw new RelayedError(LIST_NOT_RECORDED.code, LIST_NOT_RECORDED.message);
      this.deps.listed?.(slot.name, listed.shown);
      for (const tool of listed.shown) {
        const exposed = exposedName(slot.name, tool.name);
        this.warnAboutName(exposed);
        shown.push({ ...tool, name: exposed });
      }
    }
    // Injective by construction (see naming.ts); checked anyway so a broken assumption fails closed.
    assertDistinctNames(shown.map((t) => ({ exposed: t.name as string, origin: `tool ${String(t.name)}` })));
    return { tools: shown };
  }

  /**
   * The server's catalog, or "late" when it is still starting after the list's wait (serve answers at once
   * with the servers that are up, and announces the others as they come).
   */
  private async catalogOrLate(slot: ServerSlot): Promise<CatalogState | "late"> {
    const pending = slot.link.catalogState();
    if (!slot.link.starting) return pending;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">(
      (resolve) => (timer = setTimeout(() => resolve("late"), this.deps.listWaitMs)),
    );
    try {
      return await Promise.race([pending, late]);
    } finally {
      clearTimeout(timer);
    }
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

  /**
   * A modern HTTP call mirrors the arguments its tool marks with `x-mcp-header` in `Mcp-Param-*` headers:
   * they must agree with the body (else HeaderMismatch), checked against the definition the client was
   * shown, before anything is decided or forwarded.
   */
  private async checkParamHeaders(
    requestId: string | number,
    request: RequestHandle,
    era: Era,
    slot: ServerSlot,
    tool: string,
    args: unknown,
  ): Promise<null> {
    const headers = this.deps.headersOf(request);
    if (era !== "modern" || headers === undefined) return null;
    // The definition decides which headers must be there: without a catalog yet, fetch it first.
    const state = await slot.link.catalogState();
    const definition = state.ok ? state.snapshot.tools.get(tool) : slot.link.lastKnownTools?.tools.get(tool);
    if (definition === undefined) return null;
    const mismatch = paramHeaderMismatch(headers, definition.inputSchema, args);
    if (mismatch === null) return null;
    this.deps.session.refusedRequest(requestId, "tools/call", mismatch.message);
    throw new RelayedError(mismatch.code, mismatch.message, mismatch.data);
  }

  async call(requestId: string | number, params: Json, request: RequestHandle): Promise<Json> {
    const name = params.name;
    if (typeof name !== "string") {
      throw new RelayedError(-32602, "Invalid params: tools/call needs params.name, a string");
    }
    const era = this.deps.eraOf(request);
    if (this.deps.mode === "direct") return this.directCall(requestId, name, params, request, era);
    return this.metaCall(requestId, name, params, request, era);
  }

  /**
   * A missing (or hidden) tool, answered as the MCP SDK of the client's era answers one: the v1 line with an
   * error result, the v2 line (the modern era's) with Invalid params.
   */
  private unknown(name: string, era: Era): ToolResult {
    if (era === "modern") throw new RelayedError(INVALID_PARAMS, `Tool ${name} not found`);
    return this.unknownTool.answer(0, name).result as ToolResult;
  }

  private directCall(
    requestId: string | number,
    name: string,
    params: Json,
    request: RequestHandle,
    era: Era,
  ): Promise<Json> {
    return this.run(
      request,
      era,
      { requestId, params, calledAs: name, args: params.arguments },
      {
        uncounted: (reason) =>
          this.deps.session.uncountedCall(requestId, null, name, reason, params.arguments),
        resolve: (retried, answer) => {
          const split = splitExposedName(name);
          const slot = split === null ? undefined : this.deps.slots.get(split.server);
          if (split === null || slot === undefined) {
            const reason =
              split === null
                ? `'${name}' is not of the form <server>__<tool>`
                : `no enabled MCP server '${split.server}'`;
            this.deps.session.absentName(requestId, name, reason, params.arguments);
            answer(() => this.unknown(name, era));
            return null;
          }
          return {
            slot,
            target: {
              server: slot.view,
              tool: split.name,
              params: asCalled(split.name, params.arguments, retried),
              definitionShown: true,
              before: () =>
                this.checkParamHeaders(requestId, request, era, slot, split.name, params.arguments),
              fetchCatalog: () => slot.link.catalogState(),
              absent: () => answer(() => this.unknown(name, era)),
            },
          };
        },
      },
    );
  }

  private async metaCall(
    requestId: string | number,
    name: string,
    params: Json,
    request: RequestHandle,
    era: Era,
  ) {
    const { session } = this.deps;
    const meta = parseMetaToolName(name);
    const slot = meta === null ? undefined : this.deps.slots.get(meta.server);
    if (meta === null || slot === undefined) {
      // A name no server has is refused whatever the count says; a count that fails changes nothing here.
      await Promise.resolve(session.countRequest(true)).catch(() => undefined);
      session.absentName(requestId, name, `'${name}' is not a meta tool of this session`, params.arguments);
      return this.unknown(name, era);
    }
    const read = readMetaArguments(meta.kind, params.arguments);
    const via = metaToolName(meta.kind, slot.name);
    if (read.ok && read.value.kind === "invoke") {
      const invoked = read.value;
      return this.run(
        request,
        era,
        { requestId, params, calledAs: `${via} ${invoked.tool}`, args: invoked.arguments },
        {
          uncounted: (reason) => session.uncountedCall(requestId, slot.view, name, reason, params.arguments),
          resolve: (retried, answer) => ({
            slot,
            target: {
              server: slot.view,
              tool: invoked.tool,
              params: asCalled(invoked.tool, invoked.arguments, retried),
              definitionShown: false,
              via,
              before: () => null,
              fetchCatalog: () => slot.link.catalogState(),
              absent: () => answer(() => notInCatalogResult(invoked.tool, slot.name)),
            },
          }),
        },
      );
    }
    let counters: SessionCounters;
    try {
      counters = await session.countRequest(false);
    } catch (error) {
      return session.uncountedCall(requestId, slot.view, name, uncountedReason(error), params.arguments);
    }
    if (!read.ok) return invalidArgumentsResult(name, read.message);
    const args = read.value;
    const limited = session.limitMetaRequest(requestId, slot.view, via, params.arguments, counters);
    if (limited !== null) return limited;
    if (args.kind === "search") {
      slot.link.relist();
      const state = await slot.link.catalogState();
      if (!state.ok) return catalogUnavailable(via, state);
      const listed = session.filterList({
        requestId,
        server: slot.view,
        tools: [...state.snapshot.tools.values()],
        exactSchemaText: (tool) => state.snapshot.exactSchemaText(tool),
        via,
        markShown: false,
      });
      if (!listed.recorded) {
        return denyResult({
          tool: via,
          code: "E_AUDIT_WRITE",
          reason: "the audit log could not be written, so nothing was searched",
          violations: [],
          by: "toolgate",
        });
      }
      const hits = searchTools(listed.shown, args.query, args.topK);
      session.markShown(
        slot.view,
        hits.map((hit) => hit.name),
      );
      return searchResult(hits);
    }
    let catalog: CatalogState | null = null;
    for (;;) {
      const step = session.describe({
        requestId,
        server: slot.view,
        tool: args.tool,
        catalog,
        via,
        args: params.arguments,
      });
      switch (step.kind) {
        case "needs-catalog":
          catalog = await slot.link.catalogState();
          continue;
        case "described":
          return describeResult(step.tool);
        case "deny":
          return step.result;
        case "absent":
          return notInCatalogResult(args.tool, slot.name);
      }
    }
  }

  /**
   * One call through the call flow (session/runCall.ts): serve names the server and tool, forwards to the
   * server's link, asks through its approval channel, and answers the client's request with what comes.
   */
  private run(
    request: RequestHandle,
    era: Era,
    call: CallRequest,
    how: {
      uncounted(reason: string): ToolResult;
      resolve(
        params: JsonObject,
        answer: (result: () => Json) => void,
      ): { slot: ServerSlot; target: CallTarget } | null;
    },
  ): Promise<Json> {
    return new Promise<Json>((resolve, reject) => {
      // An answer may throw (the modern era's unknown tool is an error): the request then fails with it.
      const answer = (result: () => Json): void => {
        try {
          resolve(result());
        } catch (error) {
          reject(error as Error);
        }
      };
      let slot: ServerSlot | undefined;
      const port: CallPort = {
        era,
        asksOutOfBand: this.deps.asksOutOfBand(request),
        cannotAsk: this.deps.cannotAsk(request),
        resolve: (params) => {
          const found = how.resolve(params, answer);
          slot = found?.slot;
          return found?.target ?? null;
        },
        uncounted: (reason) => resolve(how.uncounted(reason)),
        forward: (params, approved, failed) => {
          const to = slot!;
          this.deps
            .forward(to, "tools/call", params, request)
            .then((result) => {
              const rewritten = rewriteToolResult(result, to.name);
              // A server's own question after the person approved: the approval rides along in toolgate's state.
              if (approved !== null && rewritten.resultType === "input_required") {
                return this.deps.rounds.carry(rewritten, approved.calledAs, approved.args);
              }
              return rewritten;
            })
            .then(resolve, (error: unknown) =>
              error instanceof UpstreamUnavailable ? resolve(failed(error.message)) : reject(error as Error),
            );
        },
        ask: (question, about) => this.deps.askApproval(question, request, about),
        answer: (result) => resolve(result),
        error: (code, message, data) => reject(new RelayedError(code, message, data)),
        // A call the client cancelled gets no answer (MCP cancellation).
        withdrawn: () => reject(new RelayedError(-32800, "Request cancelled")),
        failed: (error) => reject(error as Error),
      };
      try {
        const underway = runCall(this.deps.session, this.deps.rounds, call, port);
        if (underway instanceof Promise) underway.catch(reject);
      } catch (error) {
        reject(error as Error);
      }
    });
  }
}

/** The call as the server would get it: its own tool name, the client's arguments and _meta, and the answers to the server's own questions (a modern retry). */
function asCalled(tool: string, args: unknown, params: JsonObject): JsonObject {
  const called: JsonObject = { name: tool };
  if (args !== undefined) called.arguments = args as JsonObject[string];
  if (params._meta !== undefined) called._meta = params._meta;
  if (params.inputResponses !== undefined) called.inputResponses = params.inputResponses;
  if (params.requestState !== undefined) called.requestState = params.requestState;
  return called;
}

function catalogUnavailable(via: string, state: { reason: string }): ToolResult {
  return denyResult({
    tool: via,
    code: "E_CATALOG_UNAVAILABLE",
    reason: state.reason,
    violations: [],
    by: "toolgate",
  });
}
