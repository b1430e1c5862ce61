import { isJsonNumeric } from "../engine/json/jsonNumber.js";
import type { Transport } from "@modelcontextprotocol/client";

/** What a server said in one `notifications/progress`, without the token (the caller has its own). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** One forwarded request's progress route: send `token` to the server; its progress comes to `deliver`. */
export interface ProgressRoute {
  token: string;
  close(): void;
}

/**
 * Progress taken off a server's transport before the SDK's protocol layer sees it. The SDK handles a
 * response at once but a notification a microtask later, so progress that arrives in one read with its
 * request's result reaches a handler that is already gone, and is lost. Here each progress notification
 * under a token toolgate made is delivered synchronously, in the order it came, before the result behind
 * it; everything else goes on to the SDK untouched.
 */
export class ProgressTap {
  private next = 0;
  private readonly routes = new Map<string, (update: ProgressUpdate) => void>();

  /** Puts the tap in front of `transport`'s receiver (call after the SDK client connected it). */
  constructor(transport: Transport) {
    const sdk = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (this.take(message)) return;
      sdk?.(message, extra);
    };
  }

  open(deliver: (update: ProgressUpdate) => void): ProgressRoute {
    const token = `toolgate-progress-${++this.next}`;
    this.routes.set(token, deliver);
    return { token, close: () => void this.routes.delete(token) };
  }

  private take(message: unknown): boolean {
    if (typeof message !== "object" || message === null) return false;
    const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
    if (m.method !== "notifications/progress" || m.id !== undefined) return false;
    const token = m.params?.progressToken;
    if (typeof token !== "string") return false;
    const deliver = this.routes.get(token);
    if (deliver === undefined) return false;
    const { progress, total, message: text } = m.params!;
    // malformed: not passed on, not an SDK concern either
    if (!isJsonNumeric(progress)) return true;
    deliver({
      progress: progress as number,
      ...(isJsonNumeric(total) ? { total: total as number } : {}),
      ...(typeof text === "string" ? { message: text } : {}),
    });
    return true;
  }
}
