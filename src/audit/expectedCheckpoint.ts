import { readFileSync } from "node:fs";
import { ToolgateError } from "../engine/errors.js";
import { canonicalJson } from "../engine/pins/canonicalJson.js";
import { parseChainedLine } from "./chain.js";
import { checkCheckpoint, type CheckpointKeys, type CheckpointPayload } from "./checkpoint.js";
import type { SignedFinding, SignedLog } from "./verifySigned.js";

/**
 * `audit verify --expect-checkpoint FILE`: a checkpoint as `--checkpoint-publish` delivered it (its log
 * line), held by someone who never trusted the gateway's disk. The log it names must still have it, at its
 * `seq`: lines removed from the log's end after it was published — the checkpoint itself included — show
 * here, which the log alone cannot show.
 */

export interface ExpectedCheckpoint {
  file: string;
  /** The checkpoint's own line seq in its log. */
  seq: number;
  payload: CheckpointPayload;
}

/** Reads and verifies a published checkpoint; throws ToolgateError (bad input: exit 2) when it is not one. */
export function readExpectedCheckpoint(file: string, keys: CheckpointKeys): ExpectedCheckpoint {
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new ToolgateError(
      "E_AUDIT_READ",
      `cannot read the checkpoint ${file}: ${(error as Error).message}`,
    );
  }
  const parsed = parseChainedLine(text);
  if (!parsed.ok || parsed.event.event !== "checkpoint") {
    throw new ToolgateError(
      "E_CHECKPOINT_MALFORMED",
      `${file} is not a checkpoint line: ${parsed.ok ? "its event is not `checkpoint`" : parsed.why}`,
      "give the line --checkpoint-publish delivered on stdin, as it came",
    );
  }
  const checked = checkCheckpoint(parsed.event, keys);
  if (!checked.ok) {
    throw new ToolgateError(
      checked.fault.code,
      `the checkpoint in ${file} cannot be trusted: ${checked.fault.why}`,
    );
  }
  return { file, seq: parsed.seq, payload: checked.payload };
}

/** What the log shows against a published checkpoint of it: null when the log still has it. */
export function compareExpected(log: SignedLog, expected: ExpectedCheckpoint): SignedFinding | null {
  const { seq, payload, file } = expected;
  const at = log.wanted.get(seq);
  const published = `the checkpoint published at seq ${seq} (${file})`;
  if (at !== undefined) {
    const same =
      at.event.event === "checkpoint" &&
      canonicalJson(at.event.checkpoint) === canonicalJson(payload) &&
      at.event.seq === seq;
    if (same) return null;
    return {
      code: "E_CHECKPOINT_DIVERGED",
      title: `rewritten before checkpoint seq ${seq}`,
      line: at.line,
      message: `line ${at.line} (seq ${seq}) is not ${published}: the log was rewritten from there or before, and its chain rebuilt`,
    };
  }
  if (!log.chain.ok) return null;
  const { last_seq: lastSeq, head } = log.chain;
  if (lastSeq === seq - 1 && head === payload.head) {
    return {
      code: "E_CHECKPOINT_MISSING",
      title: `last checkpoint removed: seq ${seq}`,
      message: `${published} is not in the log, which ends at seq ${lastSeq}, exactly the head it signed: the checkpoint line was removed from the log's end`,
    };
  }
  if (lastSeq === seq - 1) {
    return {
      code: "E_CHECKPOINT_DIVERGED",
      title: `rewritten before checkpoint seq ${seq}`,
      message: `${published} signed head ${payload.head} at seq ${seq - 1}, but the log's line there hashes to ${head}, and the checkpoint is gone: the log's end was rewritten`,
    };
  }
  return {
    code: "E_AUDIT_TRUNCATED",
    title:
      log.last === null
        ? "truncated: no checkpoint left in the log"
        : `truncated after checkpoint seq ${log.last.seq}`,
    message: `${published} vouches for seq 1..${seq - 1}, but the log ends at seq ${lastSeq}: seq ${lastSeq + 1}..${seq} (the checkpoint included) were removed from its end`,
  };
}
