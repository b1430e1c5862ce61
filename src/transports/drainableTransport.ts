import {
  errorResponse,
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from "../engine/rpc/jsonRpc.js";
import type { MessageExtra, MessageTransport } from "./messageTransport.js";

/** JSON-RPC's range for a server's own errors: the request was not handled, and may be sent again. */
const SHUTTING_DOWN = -32000;

/**
 * A transport that can drain: once draining, a new request is answered at once with an error (the gateway
 * is shutting down) and never reaches the session, while the requests in flight are answered as usual. A
 * `subscriptions/listen` stream is not waited for: it has no end of its own.
 */
export class DrainableTransport implements MessageTransport {
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtra) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly pending = new Set<JsonRpcId>();
  private draining = false;
  private idle: Array<() => void> = [];

  constructor(private readonly inner: MessageTransport) {
    inner.onmessage = (message, extra) => {
      if ("method" in message && isRequest(message as JsonRpcRequest | JsonRpcNotification)) {
        const request = message as JsonRpcRequest;
        if (this.draining) {
          void inner
            .send(
              errorResponse(
                request.id,
                SHUTTING_DOWN,
                "toolgate is shutting down; the request was not handled",
              ),
            )
            .catch(() => {});
          return;
        }
        if (request.method !== "subscriptions/listen") this.pending.add(request.id);
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JsonRpcMessage, options?: { relatedRequestId?: JsonRpcId }): Promise<void> {
    await this.inner.send(message, options);
    if ("method" in message || message.id === null || !this.pending.delete(message.id)) return;
    if (this.pending.size === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Refuses new requests; resolves once the ones in flight are answered, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<{ unfinished: number }> {
    this.draining = true;
    if (this.pending.size === 0) return Promise.resolve({ unfinished: 0 });
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ unfinished: this.pending.size }), timeoutMs);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve({ unfinished: 0 });
      });
    });
  }
}
