import type { IncomingHttpHeaders } from "node:http";
import type { JsonRpcId, JsonRpcMessage } from "../engine/rpc/jsonRpc.js";

/** What came with a message besides itself: the HTTP request's headers, on HTTP. */
export interface MessageExtra {
  requestInfo?: { headers: IncomingHttpHeaders };
}

/**
 * A channel of JSON-RPC messages to and from one client: stdio, one Streamable HTTP session, or one HTTP
 * exchange of the modern era. It only moves messages (each already parsed and checked as strictly as every
 * frame toolgate reads); the protocol is the caller's. The shape is the MCP SDK's, so SDK transports (an
 * in-memory pair in tests) fit too.
 */
export interface MessageTransport {
  start(): Promise<void>;
  /** `relatedRequestId`: the client request a message belongs to (HTTP sends it on that request's stream). */
  send(message: JsonRpcMessage, options?: { relatedRequestId?: JsonRpcId }): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JsonRpcMessage, extra?: MessageExtra) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}
