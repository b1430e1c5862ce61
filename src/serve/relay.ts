import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { INTERNAL_ERROR } from "../engine/rpc/jsonRpc.js";

/** The JSON-RPC code of a request that timed out (the MCP SDKs' RequestTimeout). */
export const REQUEST_TIMEOUT = -32001;

/**
 * Errors crossing toolgate in either direction keep their JSON-RPC code, message and data: a handler throws
 * this, and the client link answers with exactly these three.
 */
export class RelayedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RelayedError";
  }
}

/** An error as the other side should see it: a server's JSON-RPC error as it was, anything else internal. */
export function relayed(error: unknown): RelayedError {
  if (error instanceof RelayedError) return error;
  if (ProtocolError.isInstance(error)) return new RelayedError(error.code, error.message, error.data);
  const message = error instanceof Error ? error.message : String(error);
  return new RelayedError(INTERNAL_ERROR, message);
}

/** The SDK client's own error when the connection ended before the answer came. */
export function isConnectionLoss(error: unknown): boolean {
  return SdkError.isInstance(error) && error.code === SdkErrorCode.ConnectionClosed;
}

/** A request toolgate sent that was not answered in time. */
export function isTimeout(error: unknown): boolean {
  return error instanceof RelayedError && error.code === REQUEST_TIMEOUT;
}

/** A tool result for a call toolgate could not complete because the server is unavailable or went away. */
export function upstreamFailureResult(message: string): Record<string, unknown> {
  return { content: [{ type: "text", text: `toolgate: ${message}` }], isError: true };
}
