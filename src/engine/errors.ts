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
