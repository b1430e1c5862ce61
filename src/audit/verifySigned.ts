import { closeSync } from "node:fs";
import { fileLines, openAuditForReading } from "./auditFile.js";
import { checkCheckpoint, type CheckpointKeys, type CheckpointPayload } from "./checkpoint.js";
import { verifyChain, type ChainReport } from "./verifyChain.js";
import type { ToolgateCode } from "../engine/model/codes.js";

/**
 * A log's chain and its signed checkpoints, checked in one walk (`audit verify --key`, `audit receipt`,
 * verifyReceipt). Every checkpoint must verify with a key given, sign this log (`log_id`: its first line's
 * hash), sign the head right before it (its own `prev`, one `seq` back) and link to the checkpoint before
 * it: a line rewritten and the chain rebuilt after it, a checkpoint removed, added, replaced or forged
 * each show as their own finding.
 */

/** What is wrong with a log's checkpoints (or, compared with a published one, with the log). */
export interface SignedFinding {
  code: ToolgateCode;
  /** What the status line says in parentheses: `BROKEN at line 12 (checkpoint signed by another key)`. */
  title: string;
  message: string;
  /** The line it is about, when one is. */
  line?: number;
}

export interface CheckpointSeen {
  /** The checkpoint's own line and seq. */
  line: number;
  seq: number;
  /** The events it vouches for: seq 1 to this. */
  covers: number;
  time: string;
  key_id: string;
  trigger: string;
  payload: CheckpointPayload;
}

export interface WantedEvent {
  line: number;
  event: Record<string, unknown>;
  hash: string;
}

export interface SignedLog {
  chain: ChainReport;
  /** The hash of the log's first line; null for an empty log. */
  logId: string | null;
  /** Checkpoints that verified, up to the first finding. */
  checkpoints: number;
  last: CheckpointSeen | null;
  /** Events after the last checkpoint that verified (every event when none did). */
  unsigned: number;
  finding: SignedFinding | null;
  /** The events at the seqs asked for, when the log has them. */
  wanted: Map<number, WantedEvent>;
}

/** Walks the log at `file` once; throws ToolgateError E_AUDIT_READ when it cannot be read. */
export function verifySignedFile(
  file: string,
  keys: CheckpointKeys,
  want: readonly number[] = [],
): SignedLog {
  const fd = openAuditForReading(file);
  try {
    return verifySigned(fileLines(fd), keys, want);
  } finally {
    closeSync(fd);
  }
}

export function verifySigned(
  lines: Parameters<typeof verifyChain>[0],
  keys: CheckpointKeys,
  want: readonly number[] = [],
): SignedLog {
  const out: Omit<SignedLog, "chain"> = {
    logId: null,
    checkpoints: 0,
    last: null,
    unsigned: 0,
    finding: null,
    wanted: new Map(),
  };
  let previousCheckpoint: { line: number; hash: string } | null = null;
  const chain = verifyChain(lines, (line, event, hash) => {
    out.logId ??= hash;
    const seq = event.seq as number;
    if (want.includes(seq)) out.wanted.set(seq, { line, event, hash });
    if (event.event !== "checkpoint") {
      out.unsigned++;
      return;
    }
    if (out.finding !== null) return;
    const found = placed(line, seq, event, keys, out.logId, previousCheckpoint);
    previousCheckpoint = { line, hash };
    if ("code" in found) {
      out.finding = found;
      return;
    }
    out.checkpoints++;
    out.unsigned = 0;
    out.last = {
      line,
      seq,
      covers: found.seq,
      time: found.time,
      key_id: found.key_id,
      trigger: typeof event.trigger === "string" ? event.trigger : "?",
      payload: found,
    };
  });
  return { chain, ...out };
}

/** A checkpoint line: its payload when it verifies and fits where it stands, else the finding. */
function placed(
  line: number,
  seq: number,
  event: Record<string, unknown>,
  keys: CheckpointKeys,
  logId: string,
  before: { line: number; hash: string } | null,
): CheckpointPayload | SignedFinding {
  const checked = checkCheckpoint(event, keys);
  if (!checked.ok) {
    const { code, why } = checked.fault;
    const title =
      code === "E_CHECKPOINT_KEY"
        ? "checkpoint signed by another key"
        : code === "E_CHECKPOINT_SIGNATURE"
          ? "checkpoint signature does not verify"
          : "not a checkpoint";
    return { code, title, line, message: `line ${line} is a checkpoint, but ${why}` };
  }
  const p = checked.payload;
  const mismatch = (message: string): SignedFinding => ({
    code: "E_CHECKPOINT_MISMATCH",
    title: "checkpoint does not match the log",
    line,
    message,
  });
  if (p.log_id !== logId) {
    return mismatch(
      `line ${line}'s checkpoint is signed for log ${p.log_id}, but this log's first line hashes to ${logId}: its first line was changed after the checkpoint was signed, or the checkpoint was copied from another log`,
    );
  }
  if (p.seq !== seq - 1 || p.head !== event.prev) {
    return mismatch(
      `line ${line}'s checkpoint signs seq ${p.seq} with head ${p.head}, but the line before it is seq ${seq - 1} with hash ${String(event.prev)}: lines before it were rewritten (and the chain rebuilt) after it was signed`,
    );
  }
  const expected = before?.hash ?? null;
  if (p.prev_checkpoint !== expected) {
    return {
      code: "E_CHECKPOINT_LINK",
      title: "checkpoint chain broken",
      line,
      message: `line ${line}'s checkpoint names ${p.prev_checkpoint === null ? "no checkpoint" : `checkpoint ${p.prev_checkpoint}`} as the one before it, but ${before === null ? "no checkpoint comes before it in the log" : `the one before it in the log is line ${before.line} (${before.hash})`}: a checkpoint was removed, added or replaced`,
    };
  }
  return p;
}
