import type { Violation } from "../engine/model/decision.js";
import {
  INTERNAL_ERROR,
  REQUEST_REFUSED,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcResponse,
} from "../engine/rpc/jsonRpc.js";
import type { GatewayCode } from "./codes.js";

/** A `tools/call` result as toolgate makes it (a deny, a meta tool's answer). */
export type ToolResult = Record<string, unknown>;

export interface DenyDetails {
  tool: string;
  code: GatewayCode;
  reason: string;
  violations: readonly Violation[];
  /**
   * Leave out `structuredContent`: when the tool declares an `outputSchema`, SDK clients validate
   * `structuredContent` even on error results and would replace the reason with a validation failure.
   */
  omitStructuredContent?: boolean;
  /** `policy` for decisions of the policy, `toolgate` for refusals of the gateway itself. */
  by?: "policy" | "toolgate";
}

/** The call-stage denial: a tool result with `isError`, so the model reads the reason. */
export function denyResult(details: DenyDetails): ToolResult {
  const text = `Blocked by ${details.by ?? "policy"}: ${details.code} ${details.reason}`;
  const result: ToolResult = { isError: true, content: [{ type: "text", text }] };
  if (details.omitStructuredContent !== true) {
    result.structuredContent = {
      status: "deny",
      error_code: details.code,
      tool: details.tool,
      reason: details.reason,
      violations: details.violations.map((v) => ({ path: v.path, message: v.message })),
    };
  }
  return result;
}

/** {@link denyResult} as the response to the call with this id. */
export function denyResponse(id: JsonRpcId, details: DenyDetails): JsonRpcResponse {
  return { jsonrpc: "2.0", id, result: denyResult(details) };
}

/** The JSON-RPC error for a request other than a call that a limit refused. */
export function requestRefusedError(code: GatewayCode, reason: string): JsonRpcErrorObject {
  return {
    code: REQUEST_REFUSED,
    message: `Request refused by policy: ${code} ${reason}`,
    data: { error_code: code, reason },
  };
}

/** A tool list toolgate could not record is not shown (the audit log must hold every decision). */
export const LIST_NOT_RECORDED: JsonRpcErrorObject = {
  code: INTERNAL_ERROR,
  message: "toolgate: E_AUDIT_WRITE the audit log could not be written; tool list withheld",
};

/** Why a refusal happened because the audit log could not be written (the write error is on stderr). */
export const NOT_RECORDED_REASON = "the audit log could not be written, so the call was not forwarded";
