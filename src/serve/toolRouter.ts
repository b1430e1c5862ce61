import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import type { ToolResult } from "../session/answers.js";
import { INVALID_PARAMS } from "../engine/rpc/jsonRpc.js";
import { runCall, type CallPort, type CallRequest, type CallTarget } from "../session/runCall.js";
import type { AnswerShape } from "../session/callPort.js";
import type { ReceiptSlot } from "../audit/receipt.js";
import { sdkUnknownToolAnswer } from "../session/unknownToolAnswer.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
import { answerMetaLookup } from "./metaLookup.js";
import { notInCatalogResult, readMetaArguments } from "./metaTools.js";
import { metaToolName, parseMetaToolName, splitExposedName } from "./naming.js";
import { RelayedError } from "./relay.js";
import type { Json, RequestHandle, RouterDeps, ServerSlot } from "./routerDeps.js";
import { ToolListing } from "./toolListing.js";
import { rewriteToolResult } from "./uriRewrite.js";
import type { Era } from "../engine/protocol/eras.js";
import { paramHeaderMismatch } from "../engine/protocol/mirroredHeaders.js";

export type { RequestHandle, RouterDeps, ServerSlot } from "./routerDeps.js";

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
  private readonly listing: ToolListing;

  constructor(private readonly deps: RouterDeps) {
    this.listing = new ToolListing(deps);
  }

  /** `tools/list` (toolListing.ts). */
  list(requestId: string | number): Promise<Json> {
    return this.listing.list(requestId);
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
        uncounted: (reason, receipt) =>
          this.deps.session.uncountedCall(requestId, null, name, reason, params.arguments, receipt),
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
              absent: (answered) => answer(() => shaped(this.unknown(name, era), answered)),
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
          uncounted: (reason, receipt) =>
            session.uncountedCall(requestId, slot.view, name, reason, params.arguments, receipt),
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
              absent: (answered) =>
                answer(() => shaped(notInCatalogResult(invoked.tool, slot.name), answered)),
            },
          }),
        },
      );
    }
    return answerMetaLookup(session, slot, requestId, name, via, params, read);
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
      uncounted(reason: string, receipt?: ReceiptSlot): ToolResult;
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
        uncounted: (reason, receipt) => how.uncounted(reason, receipt),
        forward: (params, approved, failed, answered) => {
          const to = slot!;
          return this.deps
            .forward(to, "tools/call", params, request)
            .then((result) => {
              const rewritten = rewriteToolResult(result, to.name);
              // A server's own question after the person approved: the approval rides along in toolgate's state.
              const carried =
                approved !== null && rewritten.resultType === "input_required"
                  ? this.deps.rounds.carry(rewritten, approved.calledAs, approved.args)
                  : rewritten;
              return shaped(carried, answered);
            })
            .then(resolve, (error: unknown) =>
              error instanceof UpstreamUnavailable
                ? resolve(failed(error.message, error.code))
                : reject(error as Error),
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

/** A result on its way to the client, through the call's shape when it has one (its receipt). */
function shaped(result: ToolResult, answered: AnswerShape | undefined): Json {
  return (answered === undefined ? result : answered(result)) as Json;
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
