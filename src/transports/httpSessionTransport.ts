import { writeJson } from "../engine/json/jsonNumber.js";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { JsonRpcId, JsonRpcMessage } from "../engine/rpc/jsonRpc.js";
import type { MessageExtra, MessageTransport } from "./messageTransport.js";

/**
 * One MCP session of the Streamable HTTP transport (legacy era), as the session's message transport.
 *
 * A POSTed request is answered on its own HTTP response: as plain JSON when the answer is the first thing
 * the server sends for it (the common case: one write, no event stream), or as an event stream when the
 * server first has something else to say on the way (progress, a log message, a sampling or elicitation
 * request), in which case the answer is the stream's last event. The client accepts both (it must send
 * `Accept: application/json, text/event-stream`). Messages not related to a request go to the stream the
 * client opened with GET, if any. Resumption (Last-Event-ID) is not offered.
 */

interface PendingRequest {
  res: ServerResponse;
  streaming: boolean;
  keepAlive: NodeJS.Timeout | null;
}

const KEEP_ALIVE_MS = 25_000;

export class HttpSessionTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtra) => void;
  private readonly pending = new Map<JsonRpcId, PendingRequest>();
  private standalone: { res: ServerResponse; keepAlive: NodeJS.Timeout } | null = null;
  private closed = false;

  /**
   * `sessionId`: the legacy session's `Mcp-Session-Id`, sent on every answer; `null` for one exchange of
   * the modern era (no sessions), which ends, closing the transport, once its one request is answered or
   * its client goes away, and whose errors carry the modern era's HTTP status (400, 404).
   */
  constructor(readonly sessionId: string | null) {}

  async start(): Promise<void> {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Requests still waiting for their answer. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** The client holds an event stream open (GET), so it is alive and listening. */
  get streaming(): boolean {
    return this.standalone !== null;
  }

  /** A POSTed message of this session (already checked). */
  post(message: JsonRpcMessage, res: ServerResponse, headers: IncomingHttpHeaders): void {
    if ("method" in message && "id" in message) {
      const id = message.id as JsonRpcId;
      if (this.pending.has(id)) {
        this.writeJson(res, 409, {
          jsonrpc: "2.0",
          id,
          error: { code: -32600, message: "Invalid Request: a request with this id is still in progress" },
        });
        return;
      }
      const entry: PendingRequest = { res, streaming: false, keepAlive: null };
      this.pending.set(id, entry);
      res.on("close", () => {
        if (this.pending.get(id) === entry) this.forget(id, entry);
        // A modern exchange ends with its request: a client closing the stream cancels it (MCP).
        if (this.sessionId === null) void this.close();
      });
      this.onmessage?.(message, { requestInfo: { headers } });
      return;
    }
    res.writeHead(202, this.idHeader()).end();
    this.onmessage?.(message, { requestInfo: { headers } });
  }

  /** GET: the stream for messages not related to a request. One at a time. */
  openStream(res: ServerResponse): boolean {
    if (this.standalone !== null) return false;
    this.startEventStream(res);
    const keepAlive = setInterval(() => res.write(": keepalive\n\n"), KEEP_ALIVE_MS);
    keepAlive.unref();
    const stream = { res, keepAlive };
    this.standalone = stream;
    res.on("close", () => {
      clearInterval(keepAlive);
      if (this.standalone === stream) this.standalone = null;
    });
    return true;
  }

  async send(message: JsonRpcMessage, options?: { relatedRequestId?: JsonRpcId }): Promise<void> {
    if (this.closed) return;
    if (!("method" in message)) {
      const id = (message as { id?: JsonRpcId }).id;
      const entry = id === undefined ? undefined : this.pending.get(id);
      // The client went away (or never asked): nobody is waiting for this answer.
      if (entry === undefined || id === undefined) return;
      this.forget(id, entry);
      if (entry.streaming) {
        this.writeEvent(entry.res, message);
        entry.res.end();
      } else {
        this.writeJson(entry.res, this.statusOf(message), message);
      }
      return;
    }
    const related = options?.relatedRequestId;
    const entry = related === undefined ? undefined : this.pending.get(related);
    if (entry !== undefined) {
      if (!entry.streaming) {
        entry.streaming = true;
        this.startEventStream(entry.res);
        entry.keepAlive = setInterval(() => entry.res.write(": keepalive\n\n"), KEEP_ALIVE_MS);
        entry.keepAlive.unref();
      }
      this.writeEvent(entry.res, message);
      return;
    }
    if (this.standalone !== null) {
      this.writeEvent(this.standalone.res, message);
      return;
    }
    // A request needs an answer: fail it now rather than let the server wait for one that cannot come.
    if ("id" in message) throw new Error("the client has no open stream to receive a request on");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, entry] of this.pending) {
      this.forget(id, entry);
      if (entry.streaming) entry.res.end();
      else {
        this.writeJson(entry.res, 200, {
          jsonrpc: "2.0",
          id,
          error: { code: -32000, message: "the session was closed before this request was answered" },
        });
      }
    }
    if (this.standalone !== null) {
      clearInterval(this.standalone.keepAlive);
      this.standalone.res.end();
      this.standalone = null;
    }
    this.onclose?.();
  }

  private idHeader(): Record<string, string> {
    return this.sessionId === null ? {} : { "mcp-session-id": this.sessionId };
  }

  /** The HTTP status of an answer: 200, except a modern exchange's errors (the revision names them). */
  private statusOf(message: JsonRpcMessage): number {
    const code = (message as { error?: { code?: unknown } }).error?.code;
    if (this.sessionId !== null || typeof code !== "number") return 200;
    if (code === -32601) return 404;
    return [-32602, -32600, -32020, -32021, -32022].includes(code) ? 400 : 200;
  }

  private forget(id: JsonRpcId, entry: PendingRequest): void {
    this.pending.delete(id);
    if (entry.keepAlive !== null) clearInterval(entry.keepAlive);
  }

  private startEventStream(res: ServerResponse): void {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...this.idHeader(),
    });
    res.flushHeaders();
  }

  private writeEvent(res: ServerResponse, message: unknown): void {
    res.write(`event: message\ndata: ${writeJson(message)}\n\n`);
  }

  private writeJson(res: ServerResponse, status: number, message: unknown): void {
    const body = writeJson(message);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      ...this.idHeader(),
    });
    res.end(body);
  }
}
