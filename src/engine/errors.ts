import type { ToolgateCode } from "./model/codes.js";
/**
 * Every error toolgate raises carries a stable code (for scripts and tests) and a message a user can act on.
 * Codes starting with `E_` that are also reason codes (see policy/reasonCodes.ts) describe decisions;
 * the others describe bad input or environment problems.
 */
export class ToolgateError extends Error {
  readonly code: ToolgateCode;
  readonly hint: string | undefined;

  constructor(code: ToolgateCode, message: string, hint?: string) {
    super(message);
    this.name = "ToolgateError";
    this.code = code;
    this.hint = hint;
  }
}

/** A remote server's credentials could not be had or were refused (mcp.json `auth`; docs/codes.md). */
export type UpstreamAuthCode = "E_UPSTREAM_AUTH" | "E_UPSTREAM_AUTH_PRINCIPAL";

/**
 * The code of an upstream-auth refusal behind `error` (its cause chain: the SDK wraps what a transport
 * throws), or null: what carries such an error (a catalog that could not be fetched, a forwarded call)
 * answers with that code rather than a generic one.
 */
export function upstreamAuthCodeOf(error: unknown): UpstreamAuthCode | null {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (
      current instanceof ToolgateError &&
      (current.code === "E_UPSTREAM_AUTH" || current.code === "E_UPSTREAM_AUTH_PRINCIPAL")
    )
      return current.code;
    current = current.cause;
  }
  return null;
}
