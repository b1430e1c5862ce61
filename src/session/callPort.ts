import type { ReceiptSlot } from "../audit/receipt.js";
import type { Era } from "../engine/protocol/eras.js";
import type { JsonObject, JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { Settled } from "../state/settled.js";
import type { ToolResult } from "./answers.js";
import type { UnreachedCode } from "./callPipeline.js";
import type { ApprovalOutcome } from "./approvalQuestion.js";
import type { ServerView } from "./serverView.js";
import type { CatalogState } from "./toolCatalog.js";

/** One `tools/call` as the client sent it, before anything is read of it. */
export interface CallRequest {
  requestId: JsonRpcId;
  /** The call's params as sent (toolgate's own retry members included). */
  params: JsonObject;
  /** The tool as called and its arguments: what toolgate's retry state is bound to. */
  calledAs: string;
  args: unknown;
}

/** The call, once the surface has named what it reaches. */
export interface CallTarget {
  server: ServerView;
  /** The tool's name at the server. */
  tool: string;
  /** The params as the server would get them (decided, then forwarded once the approval is stripped). */
  params: JsonObject;
  /** The client holds the tool's listed definition (direct listing). */
  definitionShown: boolean;
  /** serve's meta-tool mode: the meta tool the client called. */
  via?: string;
  /**
   * What the surface settles before the decision: the catalog it has in hand (wrap, once its server is
   * ready), or `null` (the session asks for one if the name alone cannot decide). It may refuse the call
   * by rejecting (serve: mirrored headers that disagree with the body).
   */
  before(): Settled<CatalogState | null>;
  /** The server's catalog, when the session needs it to decide; `null`: this surface decides with its own. */
  fetchCatalog: (() => Promise<CatalogState>) | null;
  /**
   * The answer a tool the server does not have gets (a hidden tool gets the same); when it is a result,
   * shaped by `answered` first.
   */
  absent(answered?: AnswerShape): void;
}

/** What becomes of a call's result on its way to the client (its receipt added: callReceipts.ts). */
export type AnswerShape = (result: Record<string, unknown>) => Record<string, unknown>;

/** An approved call in the modern era: a server's own question in its answer carries the approval on. */
export interface ApprovedRound {
  calledAs: string;
  args: unknown;
}

/** All a surface implements for a call: what the call flow needs of its transport, naming and people. */
export interface CallPort {
  era: Era;
  /** The person is asked out of band (serve's dashboard): in the modern era too, the call waits. */
  asksOutOfBand: boolean;
  /** `null` when the person behind the client can be asked (form-mode elicitation); else why not. */
  cannotAsk: string | null;
  /**
   * Names what the call reaches, after it was counted; `null` when the name reaches nothing (the surface
   * has recorded and answered it). `params` are the call's params without toolgate's own retry members.
   */
  resolve(params: JsonObject): CallTarget | null;
  /**
   * The count could not be had (the state store is unreachable): the surface records the refusal (its
   * receipt into `receipt`) and returns the result it is answered with.
   */
  uncounted(reason: string, receipt?: ReceiptSlot): ToolResult;
  /**
   * Sends the call to the server; `approved` (modern era) when the person approved it; `failed` answers a
   * server that cannot be had. A promise it returns settles once the server's answer is handled (the
   * server's time in the metrics); a surface that cannot tell returns nothing. The server's result goes to
   * the client through `answered` when given (a JSON-RPC error goes as it came).
   */
  forward(
    params: JsonObject,
    approved: ApprovedRound | null,
    failed: (reason: string, code?: UnreachedCode) => ToolResult,
    answered?: AnswerShape,
  ): void | Promise<unknown>;
  /** Puts the question to the person (elicitation, or the dashboard) while the call waits. */
  ask(question: JsonObject, about: { tool: string; server: string | null }): Promise<ApprovalOutcome>;
  /** Answers the call with a result of toolgate's own (a refusal, or the modern era's question). */
  answer(result: ToolResult | JsonObject): void;
  /** Answers the call with a JSON-RPC error. */
  error(code: number, message: string, data?: JsonObject): void;
  /** The client cancelled the call while its person was asked: MCP says nothing is answered. */
  withdrawn(): void;
  /** Something failed after the call was under way (an answer from the person that could not be carried). */
  failed(error: unknown): void;
}
