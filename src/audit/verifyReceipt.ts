import type { KeyObject } from "node:crypto";
import { ToolgateError } from "../engine/errors.js";
import type { ToolgateCode } from "../engine/model/codes.js";
import { keysOf } from "./auditKeys.js";
import type { CheckpointKeys } from "./checkpoint.js";
import { RECEIPT_META_KEY, type Receipt } from "./receipt.js";
import { verifySignedFile, type CheckpointSeen, type SignedLog } from "./verifySigned.js";

/**
 * Proves a receipt (receipt.ts) against signed logs and the public key alone: the log it names, whose
 * chain and checkpoints verify, has at the receipt's `seq` exactly the line whose hash the receipt holds,
 * with the receipt's decision, and a checkpoint signed after it vouches for it. `toolgate audit receipt`
 * and the library's `verifyReceipt` (for a client that kept its receipts) both use it.
 */

export type ReceiptVerdict =
  | {
      ok: true;
      /** The log that has the event, as given. */
      log: string;
      /** The event's line in it, and the event. */
      line: number;
      event: Record<string, unknown>;
      /** The checkpoint that vouches for it. */
      checkpoint: CheckpointSeen;
    }
  | { ok: false; code: ToolgateCode; message: string; log?: string };

export interface ReceiptCheck {
  /** The receipt, or a `tools/call` result that carries one in `_meta["io.toolgate/receipt"]`. */
  receipt: unknown;
  /** The public keys checkpoints may be signed with: KeyObjects or PEM texts. */
  keys: readonly (KeyObject | string)[];
  /** The log files (one per replica); the receipt's `log_id` picks one. */
  logs: readonly string[];
}

/** The library's helper: synchronous, reads the logs; bad input is a verdict too (E_RECEIPT_INPUT, …). */
export function verifyReceipt(check: ReceiptCheck): ReceiptVerdict {
  try {
    return proveReceipt(readReceipt(check.receipt), keysOf(check.keys), check.logs);
  } catch (error) {
    if (error instanceof ToolgateError) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: "E_RECEIPT_INPUT", message: (error as Error).message };
  }
}

/** The receipt in `value`; throws ToolgateError E_RECEIPT_INPUT saying which field is wrong. */
export function readReceipt(value: unknown): Receipt {
  const object = asObject(value);
  const meta = asObject(object?._meta);
  const receipt = asObject(meta?.[RECEIPT_META_KEY]) ?? object;
  const problem = (what: string): ToolgateError =>
    new ToolgateError(
      "E_RECEIPT_INPUT",
      `not a receipt: ${what}`,
      `give the receipt as toolgate sent it (the answer's _meta["${RECEIPT_META_KEY}"]), or the whole answer`,
    );
  if (receipt === null) throw problem("not a JSON object");
  const { log_id: logId, seq, hash, decision } = receipt;
  for (const [field, v] of [
    ["log_id", logId],
    ["hash", hash],
  ] as const) {
    if (typeof v !== "string" || !/^[0-9a-f]{64}$/.test(v)) {
      throw problem(`\`${field}\` is not 64 lowercase hex characters`);
    }
  }
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) {
    throw problem("`seq` is not an integer from 1");
  }
  if (typeof decision !== "string") throw problem("`decision` is not a string");
  return { log_id: logId as string, seq, hash: hash as string, decision };
}

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Throws ToolgateError E_AUDIT_READ for a log that cannot be read. */
export function proveReceipt(
  receipt: Receipt,
  keys: CheckpointKeys,
  logs: readonly string[],
): ReceiptVerdict {
  const ids: string[] = [];
  for (const file of logs) {
    const log = verifySignedFile(file, keys, [receipt.seq]);
    if (log.logId === receipt.log_id) return judged(receipt, log, file);
    ids.push(`${file}: ${log.logId ?? "empty"}`);
  }
  return {
    ok: false,
    code: "E_AUDIT_LOG_UNKNOWN",
    message: `the receipt is for log ${receipt.log_id}, and no log given is that one (${ids.join("; ")}): give the log it names (each replica keeps its own), with its first line as written`,
  };
}

function judged(receipt: Receipt, log: SignedLog, file: string): ReceiptVerdict {
  const refuse = (code: ToolgateCode, message: string): ReceiptVerdict => ({
    ok: false,
    code,
    message,
    log: file,
  });
  if (!log.chain.ok) {
    const b = log.chain.break;
    return refuse("E_AUDIT_CHAIN", `the log's chain is broken at line ${b.line} (${b.kind}): ${b.message}`);
  }
  if (log.finding !== null) return refuse(log.finding.code, log.finding.message);
  const at = log.wanted.get(receipt.seq);
  if (at === undefined) {
    return refuse(
      "E_RECEIPT_CUT",
      `the receipt's event (seq ${receipt.seq}) is not in the log, which ends at seq ${log.chain.last_seq}: the event was cut from the log's end${log.last === null ? "" : ` (its last checkpoint left is seq ${log.last.seq})`}`,
    );
  }
  if (at.hash !== receipt.hash) {
    return refuse(
      "E_RECEIPT_MISMATCH",
      `line ${at.line} (seq ${receipt.seq}) hashes to ${at.hash}, not to the receipt's ${receipt.hash}: the event the receipt was given for is not the one in the log (the log was rewritten from there), or the receipt is not toolgate's`,
    );
  }
  if (at.event.decision !== receipt.decision) {
    return refuse(
      "E_RECEIPT_DECISION",
      `line ${at.line} is the receipt's event, but it records decision '${String(at.event.decision)}', not the receipt's '${receipt.decision}': the receipt was altered`,
    );
  }
  if (log.last === null || log.last.covers < receipt.seq) {
    return refuse(
      "E_RECEIPT_UNSIGNED",
      `line ${at.line} is the receipt's event, but no signed checkpoint follows it yet (${log.last === null ? "the log has none" : `the last covers seq 1..${log.last.covers}`}): the next checkpoint will vouch for it`,
    );
  }
  return { ok: true, log: file, line: at.line, event: at.event, checkpoint: log.last };
}
