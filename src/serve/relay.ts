import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * Errors crossing toolgate in either direction keep their JSON-RPC code, message and data. The SDK's McpError
 * prefixes its message with `MCP error <code>: `, so a relayed one would arrive with the prefix twice; the
 * protocol layer sends whatever `code`, `message` and `data` a thrown error has, so we throw this instead.
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

function rawMessage(error: McpError): string {
  const prefix = `MCP error ${error.code}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/** An error as the other side should see it: same code, message and data for a JSON-RPC error. */
export function relayed(error: unknown): RelayedError {
  if (error instanceof RelayedError) return error;
  if (error instanceof McpError) return new RelayedError(error.code, rawMessage(error), error.data);
  const message = error instanceof Error ? error.message : String(error);
  return new RelayedError(ErrorCode.InternalError, message);
}

/** The SDK client's own error when the connection ended before the answer came. */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** A tool result for a call toolgate could not complete because the server is unavailable or went away. */
export function upstreamFailureResult(message: string): Record<string, unknown> {
  return { content: [{ type: "text", text: `toolgate: ${message}` }], isError: true };
}
