import type { ReasonCode } from "../engine/model/reasonCodes.js";

/**
 * Codes toolgate itself gives a call or request it refuses for a reason other than the policy: it could not
 * record the decision, could not read the server's catalog to decide with, or could not reach the server
 * after deciding. Every meaning and fix is in docs/codes.md.
 */
export const GATEWAY_REFUSAL_CODES = [
  "E_AUDIT_WRITE",
  "E_CATALOG_UNAVAILABLE",
  "E_UPSTREAM_UNAVAILABLE",
] as const;

export type GatewayRefusalCode = (typeof GATEWAY_REFUSAL_CODES)[number];

/** Every code a decision or refusal of the call pipeline carries: the policy's, then toolgate's own. */
export type GatewayCode = ReasonCode | GatewayRefusalCode;
