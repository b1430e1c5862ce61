import { readApprovalAnswer, type ApprovalOutcome } from "../session/approvalQuestion.js";
import type {
  JsonObject,
  JsonRpcId,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import { PrivateRequestFailure, PrivateRequests } from "./privateRequests.js";

/**
 * Puts approval questions to the client (`elicitation/create` with ids in toolgate's own namespace) while
 * the call they are about waits, and tells the proxy what the person answered. At most one question per
 * pending call; a question that gets no answer in time, or whose call the client cancels, is withdrawn
 * with `notifications/cancelled` so the client can close it.
 */
export class ApprovalAsker {
  private readonly requests: PrivateRequests;
  /** Client call id → id of the question about it. */
  private readonly byCall = new Map<JsonRpcId, string>();

  constructor(
    private readonly toClient: (message: JsonRpcRequest | JsonRpcNotification) => void,
    private readonly timeoutMs: number,
  ) {
    this.requests = new PrivateRequests((request) => toClient(request), timeoutMs);
  }

  /** True for the id of a question toolgate asked (the client's answer is toolgate's, not the server's). */
  owns(id: JsonRpcId | null): id is string {
    return this.requests.owns(id);
  }

  settle(id: string, response: JsonRpcResponse): void {
    this.requests.settle(id, response);
  }

  /** True while the call with this id waits for its approval. */
  pending(callId: JsonRpcId): boolean {
    return this.byCall.has(callId);
  }

  async ask(callId: JsonRpcId, params: JsonObject): Promise<ApprovalOutcome> {
    const { id, answer } = this.requests.start("elicitation/create", params);
    this.byCall.set(callId, id);
    try {
      return readApprovalAnswer((await answer).response);
    } catch (error) {
      if (error instanceof PrivateRequestFailure) {
        if (error.kind === "timeout") {
          this.withdrawn(id, "toolgate stopped waiting for an answer");
          return { approved: false, outcome: "timeout", detail: error.message };
        }
        if (error.message === CLIENT_CANCELLED) return { approved: false, outcome: "client-cancelled" };
      }
      return {
        approved: false,
        outcome: "error",
        detail: error instanceof Error ? error.message : String(error),
      };
    } finally {
      this.byCall.delete(callId);
    }
  }

  /** The client cancelled the call with this id: its question is withdrawn. False when none was pending. */
  cancelCall(callId: JsonRpcId): boolean {
    const id = this.byCall.get(callId);
    if (id === undefined) return false;
    this.withdrawn(id, "the call it asks about was cancelled");
    this.requests.withdraw(id, CLIENT_CANCELLED);
    return true;
  }

  /** The client is gone: every pending question fails (its call is denied). */
  abandonAll(reason: string): void {
    this.requests.abandonAll(reason);
  }

  private withdrawn(id: string, reason: string): void {
    this.toClient({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } });
  }
}

const CLIENT_CANCELLED = "the client cancelled the call";
