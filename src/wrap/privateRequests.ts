import { randomBytes } from "node:crypto";
import type { JsonObject, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "../engine/rpc/jsonRpc.js";

/** Why a private request got no answer. */
export class PrivateRequestFailure extends Error {
  constructor(
    message: string,
    /** `timeout`: none within the bound; `abandoned`: the peer went away or the request was withdrawn. */
    readonly kind: "timeout" | "abandoned",
  ) {
    super(message);
  }
}

/** A response together with the frame text it was read from (when the transport had one). */
export interface AnsweredRequest {
  response: JsonRpcResponse;
  text?: string;
}

/**
 * Requests toolgate sends to one peer on its own behalf (to the server: catalog pages, the unknown-tool
 * probe; to the client: approval questions). Their ids live in a per-process random namespace, so the
 * peer's answers are told apart from answers meant for the other side, and ids inside it are refused
 * from the other side.
 */
export class PrivateRequests {
  readonly prefix = `toolgate-${randomBytes(6).toString("hex")}-`;
  private next = 1;
  private readonly pending = new Map<
    string,
    { resolve: (r: AnsweredRequest) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly send: (request: JsonRpcRequest) => void,
    private readonly timeoutMs: number,
  ) {}

  owns(id: JsonRpcId | null): id is string {
    return typeof id === "string" && id.startsWith(this.prefix);
  }

  request(method: string, params: JsonObject): Promise<JsonRpcResponse> {
    return this.start(method, params).answer.then((a) => a.response);
  }

  /** Sends a request; `id` names it (to withdraw it), `answer` settles with the response and its frame text. */
  start(
    method: string,
    params: JsonObject,
    timeoutMs = this.timeoutMs,
  ): { id: string; answer: Promise<AnsweredRequest> } {
    const id = `${this.prefix}${this.next++}`;
    const answer = new Promise<AnsweredRequest>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new PrivateRequestFailure(`no answer to ${method} within ${timeoutMs} ms`, "timeout"));
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
    });
    this.send({ jsonrpc: "2.0", id, method, params });
    return { id, answer };
  }

  /** Hands a response to the request waiting for it; late answers (after a timeout) are dropped. */
  settle(id: string, response: JsonRpcResponse, text?: string): void {
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(text === undefined ? { response } : { response, text });
  }

  /** Stops waiting for one request (its answer, if any comes, is dropped). */
  withdraw(id: string, reason: string): void {
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.reject(new PrivateRequestFailure(reason, "abandoned"));
  }

  /** The peer went away: nothing pending will be answered. */
  abandonAll(reason: string): void {
    for (const id of [...this.pending.keys()]) this.withdraw(id, reason);
  }
}
