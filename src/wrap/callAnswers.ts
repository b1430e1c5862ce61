import {
  isJsonObject,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import type { ApprovalRounds } from "../session/approvalRounds.js";
import type { AnswerShape, ApprovedRound } from "../session/callPort.js";

/**
 * The server's answers to the calls wrap forwarded, on their way to the client: an approved call's (modern
 * era) carries the approval on when the server asks a question of its own, and each result goes through the
 * call's shape (its receipt, session/callReceipts.ts). A JSON-RPC error goes as it came.
 */
export class CallAnswers {
  private readonly pending = new Map<JsonRpcId, { approved: ApprovedRound | null; answered?: AnswerShape }>();

  constructor(private readonly rounds: ApprovalRounds) {}

  /** A call went to the server: what its answer needs, if anything. */
  forwarded(id: JsonRpcId, approved: ApprovedRound | null, answered: AnswerShape | undefined): void {
    if (approved === null && answered === undefined) return;
    this.pending.set(id, { approved, ...(answered === undefined ? {} : { answered }) });
  }

  /** The server's answer as the client gets it. */
  answer(response: JsonRpcResponse): JsonRpcResponse {
    const id = response.id;
    const call = id === null ? undefined : this.pending.get(id);
    if (call === undefined) return response;
    this.pending.delete(id!);
    if (!isJsonObject(response.result)) return response;
    let result: JsonObject = response.result;
    if (call.approved !== null && result.resultType === "input_required") {
      result = this.rounds.carry(result, call.approved.calledAs, call.approved.args);
    }
    return { ...response, result: call.answered === undefined ? result : call.answered(result) };
  }
}

/** A response toolgate makes (the unknown-tool answer), its result through `answered` when given. */
export function shapedResponse(
  response: JsonRpcResponse,
  answered: AnswerShape | undefined,
): JsonRpcResponse {
  if (answered === undefined || !isJsonObject(response.result)) return response;
  return { ...response, result: answered(response.result) };
}
