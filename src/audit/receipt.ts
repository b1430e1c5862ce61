/**
 * Receipts: what a client gets, in its answer's `_meta`, to prove later which decision toolgate recorded for
 * its call. Four fields and nothing else, so a receipt carries nothing of the arguments or the reason (what
 * redaction hides stays hidden): the log, the event's place in it, the hash of the event's line as the
 * chain computes it (chain.ts), and the decision. The hash commits to everything in the line; the line
 * itself stays with whoever keeps the log. Once a signed checkpoint follows the event, the receipt is
 * provable against the log and the public key alone (verifyReceipt.ts).
 */

/** The `_meta` member of an answer to `tools/call` that holds its receipt. */
export const RECEIPT_META_KEY = "io.toolgate/receipt";

export interface Receipt {
  /** The log's id: the hash of its first line (checkpoint.ts). */
  log_id: string;
  /** The event's `seq`. */
  seq: number;
  /** Hex SHA-256 of the event's line (without its newline). */
  hash: string;
  /** The event's `decision`. */
  decision: string;
}

/** Where an event landed in a chained log: what a sink that signs its log returns from `write`. */
export interface AuditPosition {
  log_id: string;
  seq: number;
  hash: string;
}

/** Where the receipt of one call is left by whoever records its decision, for whoever answers it. */
export interface ReceiptSlot {
  value: Receipt | null;
}

/**
 * The result with its receipt in `_meta` (a copy; the result given is not changed). A result whose `_meta`
 * is there but not an object is left as it is: toolgate does not repair a server's answer.
 */
export function withReceipt(
  result: Record<string, unknown>,
  receipt: Receipt | null,
): Record<string, unknown> {
  if (receipt === null) return result;
  const meta = result._meta;
  if (meta === undefined || meta === null) return { ...result, _meta: { [RECEIPT_META_KEY]: receipt } };
  if (typeof meta !== "object" || Array.isArray(meta)) return result;
  return { ...result, _meta: { ...(meta as Record<string, unknown>), [RECEIPT_META_KEY]: receipt } };
}
