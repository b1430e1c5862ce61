import type { Violation } from "../engine/model/decision.js";
import type { JsonRpcId, JsonRpcResponse } from "../engine/rpc/jsonRpc.js";

/** Codes toolgate itself raises when it refuses a call for a reason other than the policy. */
export type GatewayDenyCode = "E_AUDIT_WRITE" | "E_CATALOG_UNAVAILABLE";

export interface DenyDetails {
  tool: string;
  code: string;
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

/** The call-stage denial of DESIGN §2: a tool result with `isError`, so the model reads the reason. */
export function denyResponse(id: JsonRpcId, details: DenyDetails): JsonRpcResponse {
  const text = `Blocked by ${details.by ?? "policy"}: ${details.code} ${details.reason}`;
  const result: Record<string, unknown> = { isError: true, content: [{ type: "text", text }] };
  if (details.omitStructuredContent !== true) {
    result.structuredContent = {
      status: "deny",
      error_code: details.code,
      tool: details.tool,
      reason: details.reason,
      violations: details.violations.map((v) => ({ path: v.path, message: v.message })),
    };
  }
  return { jsonrpc: "2.0", id, result };
}
