import { decimalOf, isIntegral } from "../json/decimal.js";
import { JsonNumber } from "../json/jsonNumber.js";
/**
 * JSON-RPC 2.0 message shapes as MCP uses them, and the check that turns a parsed value into one of them.
 * MCP narrows JSON-RPC: ids are strings or integers (never null on a request), `params` is an object.
 */

export type JsonRpcId = string | number;
export type JsonObject = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: JsonObject;
  [key: string]: unknown;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject;
  [key: string]: unknown;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  /** `null` only on an error answering a message whose id could not be read. */
  id: JsonRpcId | null;
  result?: unknown;
  error?: JsonRpcErrorObject;
  [key: string]: unknown;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type ClassifiedMessage =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; reason: string };

/** Standard JSON-RPC error codes toolgate answers with. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined server error (JSON-RPC reserves -32000…-32099): a request refused by a limit. */
export const REQUEST_REFUSED = -32000;

/** A JSON object: not an array, and not a number kept as written (JsonNumber), which is a leaf. */
export function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/**
 * An id or progress token written in a form a double changes (`1.0`, `1e0`; see jsonNumber.ts) is the
 * integer it stands for when that is a safe integer: ids are matched by value, and every peer reads `1.0`
 * as 1. An id beyond ±(2^53 − 1) or with a fraction stays a JsonNumber, which is no valid id (refused).
 */
function plainInteger(value: unknown): unknown {
  if (!(value instanceof JsonNumber)) return value;
  const decimal = decimalOf(value.text);
  return decimal !== null && isIntegral(decimal) && Number.isSafeInteger(value.value) ? value.value : value;
}

/** Decides which JSON-RPC message a parsed (non-array) value is, or why it is none. */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (!isJsonObject(value)) {
    return { kind: "invalid", reason: `a message must be a JSON object, got ${describe(value)}` };
  }
  if (value.jsonrpc !== "2.0") return { kind: "invalid", reason: 'the "jsonrpc" member must be "2.0"' };
  if (value.id instanceof JsonNumber) value.id = plainInteger(value.id);
  const meta = isJsonObject(value.params) ? value.params._meta : undefined;
  if (isJsonObject(meta) && meta.progressToken instanceof JsonNumber)
    meta.progressToken = plainInteger(meta.progressToken);

  const hasId = Object.hasOwn(value, "id");
  if (Object.hasOwn(value, "method")) {
    if (typeof value.method !== "string")
      return { kind: "invalid", reason: 'the "method" member must be a string' };
    if (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) {
      return { kind: "invalid", reason: 'a message cannot have both "method" and "result"/"error"' };
    }
    if (Object.hasOwn(value, "params") && !isJsonObject(value.params)) {
      return { kind: "invalid", reason: 'the "params" member must be an object' };
    }
    if (!hasId) return { kind: "notification", message: value as JsonRpcNotification };
    if (!isId(value.id))
      return {
        kind: "invalid",
        reason: 'a request "id" must be a string or an integer (at most 2^53 − 1 in size)',
      };
    return { kind: "request", message: value as JsonRpcRequest };
  }

  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult === hasError) {
    return { kind: "invalid", reason: 'a message needs "method", or exactly one of "result" and "error"' };
  }
  if (!hasId) return { kind: "invalid", reason: 'a response needs an "id"' };
  if (hasResult && !isId(value.id))
    return { kind: "invalid", reason: 'a response "id" must be a string or an integer' };
  if (hasError) {
    if (value.id !== null && !isId(value.id)) {
      return { kind: "invalid", reason: 'an error response "id" must be a string, an integer or null' };
    }
    const error = value.error;
    if (!isJsonObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
      return {
        kind: "invalid",
        reason: 'the "error" member must be an object with an integer "code" and a string "message"',
      };
    }
  }
  return { kind: "response", message: value as JsonRpcResponse };
}

/** For a message already classified as a request or a notification: which one it is. */
export function isRequest(message: JsonRpcRequest | JsonRpcNotification): message is JsonRpcRequest {
  return Object.hasOwn(message, "id");
}

export function errorResponse(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id, error };
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}
