import type { Violation } from "../engine/model/decision.js";
import { redactArguments, redactText, type RedactContractInput } from "../engine/controls/redact.js";

/**
 * What toolgate may write about one call (audit record, stderr, the question put to a person), never what it
 * forwards. A tool under `tools.redact_args` follows the policy's contract; every other tool still never
 * has the values of secret-looking members (`password`, `api_key`, `Authorization`, …; see
 * controls/argumentNames.ts) shown: they are masked wherever arguments or text echoing them are written.
 */
export interface CallRedaction {
  /** The contract of `tools.redact_args` for this tool, `null` when it is not listed there. */
  readonly contract: RedactContractInput | null;
  /** The arguments as they may be shown (the contract's redaction, else secret-looking members masked). */
  shownArguments(): unknown;
  /** A text (a reason, an error message) with every value the redaction hides replaced, then cut. */
  scrub(text: string): string;
  /** Violations with their messages scrubbed (a scope violation quotes the path it refused). */
  scrubViolations(violations: readonly Violation[]): Violation[];
}

/**
 * Longest text toolgate writes about a call in one reason or violation (after redaction: masking first and
 * cutting after, so a cut never leaves a piece of a secret the mask would not recognise).
 */
export const MAX_WRITTEN_TEXT = 1000;

/** A text cut to `max` characters, saying how much was left out. */
export function cutText(text: string, max = MAX_WRITTEN_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** The redaction every tool gets, listed under `redact_args` or not. */
export const SENSITIVE_FIELDS_MASK: RedactContractInput = {
  redactionMode: "mask",
  redactionScope: "sensitive_fields",
};

export function callRedaction(contract: RedactContractInput | null, args: unknown): CallRedaction {
  const effective = contract ?? SENSITIVE_FIELDS_MASK;
  let shown: { value: unknown } | undefined;
  return {
    contract,
    shownArguments() {
      shown ??= { value: redactArguments(effective, args) };
      return shown.value;
    },
    // Every contract covers the secret-looking members too (redact.ts selects them in both scopes).
    scrub: (text: string): string => cutText(redactText(effective, text, args)),
    scrubViolations: (violations) =>
      violations.map((v) => ({ path: v.path, message: cutText(redactText(effective, v.message, args)) })),
  };
}
