import { randomBytes } from "node:crypto";
import type { JsonObject, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "./jsonRpc.js";

/**
 * Requests toolgate sends to the server on its own behalf (catalog pages, the unknown-tool probe). Their
 * ids live in a per-process random namespace, so the server's answers are told apart from answers to the
 * client, and the client is refused ids inside it.
 */
export class PrivateRequests {
  readonly prefix = `toolgate-${randomBytes(6).toString("hex")}-`;
  private next = 1;
  private readonly pending = new Map<
    string,
    { resolve: (r: JsonRpcResponse) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly send: (request: JsonRpcRequest) => void,
    private readonly timeoutMs: number,
  ) {}

  owns(id: JsonRpcId | null): id is string {
    return typeof id === "string" && id.startsWith(this.prefix);
  }

  request(method: string, params: JsonObject): Promise<JsonRpcResponse> {
    const id = `${this.prefix}${this.next++}`;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Hands a server response to the request waiting for it; late answers (after a timeout) are dropped. */
  settle(id: string, response: JsonRpcResponse): void {
    const waiting = this.pending.get(id);
    if (waiting === undefined) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve(response);
  }

  /** The server went away: nothing pending will be answered. */
  abandonAll(reason: string): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      waiting.reject(new Error(reason));
    }
  }
}
