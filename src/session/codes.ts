import type { GatewayRefusalCode } from "../engine/model/codes.js";
import type { ReasonCode } from "../engine/model/reasonCodes.js";

/** Every code a decision or refusal of the call pipeline carries: the policy's, then toolgate's own. */
export type GatewayCode = ReasonCode | GatewayRefusalCode;
