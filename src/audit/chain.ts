import { DEFAULT_MAX_JSON_DEPTH, parseStrictJson } from "../engine/json/strictJson.js";
import { sha256Hex } from "../engine/pins/hashes.js";

/**
 * The audit log's hash chain. Line n carries `seq` = n (counted across every run that appended to the
 * file) and `prev` = hex SHA-256 of line n−1's exact bytes without its newline; line 1 has `prev` =
 * AUDIT_GENESIS. Hashing the bytes as written (not a re-serialization) means any change to a line —
 * a field, a space, a key order — breaks the link of the line after it, and a deleted or moved line
 * breaks both `seq` and `prev`.
 */

/** `prev` of the first line of a log. */
export const AUDIT_GENESIS = "0".repeat(64);

/** Where the chain stands after a line: the next line gets `seq + 1` and `prev = hash`. */
export interface ChainHead {
  seq: number;
  hash: string;
}

export const GENESIS_HEAD: ChainHead = { seq: 0, hash: AUDIT_GENESIS };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The hash a line contributes to the chain: SHA-256 of its bytes (a string counts as its UTF-8 bytes). */
export function lineHash(line: string | Uint8Array): string {
  return sha256Hex(line);
}

/**
 * The line (without newline) for an event whose JSON text is `eventJson`, chained after `head`: the
 * chain fields first, then the event's own members in their order. The event must be a JSON object
 * with at least one member and without `seq` or `prev` of its own (the caller checks).
 */
export function chainedLine(eventJson: string, head: ChainHead): string {
  return `{"seq":${head.seq + 1},"prev":"${head.hash}",${eventJson.slice(1)}`;
}

export type ParsedChainLine =
  { ok: true; seq: number; prev: string; event: Record<string, unknown> } | { ok: false; why: string };

/**
 * A line of a chained audit log read back: strict JSON (duplicate member names would let two readers see
 * two different events in one line), an object, a positive integer `seq`, a 64-hex `prev`, and the
 * `policy_digest` every event carries. `expectedPrev`: the hash the reader expects `prev` to be (a verifier
 * knows it); a `prev` equal to it is hex without looking again.
 */
export function parseChainedLine(text: string, expectedPrev?: string): ParsedChainLine {
  let value: unknown = asWritten(text);
  if (value === undefined) {
    const parsed = parseStrictJson(text);
    if (!parsed.ok) return { ok: false, why: `not strict JSON (${parsed.message})` };
    value = parsed.value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, why: "not a JSON object" };
  }
  const event = value as Record<string, unknown>;
  const seq = event.seq;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) {
    return { ok: false, why: "no chain position (`seq` must be an integer from 1)" };
  }
  const prev = event.prev;
  if (typeof prev !== "string" || (prev !== expectedPrev && !SHA256_HEX.test(prev))) {
    return { ok: false, why: "no chain link (`prev` must be 64 lowercase hex characters)" };
  }
  if (!Object.hasOwn(event, "policy_digest")) return { ok: false, why: "no `policy_digest`" };
  const digest = event.policy_digest;
  if (digest !== null && digest !== lastDigest) {
    if (typeof digest !== "string" || !SHA256_HEX.test(digest)) {
      return { ok: false, why: "`policy_digest` is neither null nor a hex SHA-256" };
    }
    lastDigest = digest;
  }
  return { ok: true, seq, prev, event };
}

/** The last `policy_digest` found to be hex: a log's events mostly carry one, checked once. */
let lastDigest: string | null = null;

/**
 * The value of a line written as JSON.stringify writes it (as the audit sink does), found the cheap way:
 * when the native parser's value, written again, is the very same text, the text is the writing of a value,
 * and a value's object has each member name once, so the text repeats none; the native parser accepts
 * nothing else the strict scanner refuses, and the depth is checked on the value (before writing it again).
 * `undefined`: any other text (spaces, an escape or a number written otherwise, a repeated name, an error),
 * which parseStrictJson then reads and judges with its own messages. Twice as fast as the strict scan.
 */
function asWritten(text: string): object | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || deeperThan(value, DEFAULT_MAX_JSON_DEPTH))
    return undefined;
  try {
    return JSON.stringify(value) === text ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether arrays and objects nest more than `room` deep in `value` (as parseStrictJson counts depth). */
function deeperThan(value: object, room: number): boolean {
  if (room === 0) return true;
  if (Array.isArray(value)) {
    for (const child of value as unknown[]) {
      if (typeof child === "object" && child !== null && deeperThan(child, room - 1)) return true;
    }
    return false;
  }
  // A parsed value's members are all its own: for…in walks them without making a list of them.
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && deeperThan(child, room - 1)) return true;
  }
  return false;
}
