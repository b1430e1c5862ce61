import type { FileLine } from "./auditFile.js";
import { decodeUtf8 } from "./auditFile.js";
import { AUDIT_GENESIS, lineHash, parseChainedLine, type ParsedChainLine } from "./chain.js";

/**
 * `toolgate audit verify`: walks a log's lines and reports the first link that does not hold.
 *
 * What each kind of tampering looks like, line k being where the walk stops:
 * - a line edited (any byte): the NEXT line's `prev` no longer matches its hash while `seq` still counts on,
 *   so the edited line is k − 1; an edit of `seq` or `prev` themselves shows on the line itself;
 * - lines deleted: `seq` jumps forward and `prev` does not match (the missing numbers are reported);
 * - lines moved: `seq` jumps (forward, to a number found later in the file) or goes back, and `prev` does
 *   not match;
 * - a cut-short last line: no newline at the end, or not a complete JSON event.
 * Not detectable from the file alone: whole lines removed from the end, or the last line rewritten (no line
 * follows to vouch for it). The report's `head` (hash of the last line) and count are what to keep
 * elsewhere to close that gap.
 */

export type BreakKind = "edited" | "deleted" | "reordered" | "truncated" | "malformed";

export interface ChainBreak {
  /** The line the report points at (1-based): the edited line, the first line after a gap, … */
  line: number;
  kind: BreakKind;
  message: string;
  /** The line whose link was checked when the break showed (for `edited`, the line after `line`). */
  detected_at: number;
  expected_prev?: string;
  found_prev?: string;
  expected_seq?: number;
  found_seq?: number;
  /** For `deleted`: the first and last missing `seq`. */
  missing?: [number, number];
}

export type ChainReport =
  | { ok: true; events: number; head: string; last_seq: number }
  | { ok: false; events: number; break: ChainBreak };

interface Previous {
  line: number;
  seq: number;
  hash: string;
}

/**
 * `onEvent` gets each event whose link held, as parsed (once) for the check, and its line's hash, in file
 * order: a reader that needs the events too (replay, signed checkpoints) walks the file once. Events before
 * a break have been handed over when the report says broken; the reader must discard what it made of them.
 */
export function verifyChain(
  lines: Iterable<FileLine>,
  onEvent?: (line: number, event: Record<string, unknown>, hash: string) => void,
): ChainReport {
  const steps = verifyChainSteps(lines, onEvent);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Lines walked between two pauses of {@link verifyChainSteps}. */
export const CHAIN_STEP_LINES = 256;

/**
 * verifyChain in steps: the same walk, pausing (a bare `yield`) after every CHAIN_STEP_LINES lines, also
 * while it reads on past a break to tell what kind it is. A reader inside a server (the dashboard's what-if
 * view) lets the event loop run between steps; verifyChain runs them back to back.
 */
export function* verifyChainSteps(
  lines: Iterable<FileLine>,
  onEvent?: (line: number, event: Record<string, unknown>, hash: string) => void,
): Generator<void, ChainReport, void> {
  const iterator = lines[Symbol.iterator]();
  let previous: Previous | null = null;
  let events = 0;
  let sincePause = 0;
  for (let next = iterator.next(); next.done !== true; next = iterator.next()) {
    const { number, bytes, terminated } = next.value;
    const text = decodeUtf8(bytes);
    const expectedPrev: string = previous === null ? AUDIT_GENESIS : previous.hash;
    const parsed: ParsedChainLine =
      text === null ? ({ ok: false, why: "not UTF-8" } as const) : parseChainedLine(text, expectedPrev);
    if (!terminated) {
      return broken(events, {
        line: number,
        detected_at: number,
        kind: "truncated",
        message: `line ${number} has no newline at the end: the log was cut short (a truncated file or a write that did not finish)${parsed.ok ? "" : `, and it is ${parsed.why}`}`,
      });
    }
    if (!parsed.ok) {
      return broken(events, {
        line: number,
        detected_at: number,
        kind: "malformed",
        message: `line ${number} is not a chained audit event: ${parsed.why}`,
      });
    }

    const expectedSeq = previous === null ? 1 : previous.seq + 1;
    const links = parsed.prev === expectedPrev;
    const counts = parsed.seq === expectedSeq;
    if (!links || !counts) {
      const detail = {
        detected_at: number,
        expected_prev: expectedPrev,
        found_prev: parsed.prev,
        expected_seq: expectedSeq,
        found_seq: parsed.seq,
      };
      const found = yield* classify(number, previous, parsed.seq, links, lineHash(bytes), detail, iterator);
      // An edit found through the next line's link: the edited line was counted before it was suspect.
      const { line, kind, message, ...rest } = found;
      return broken(found.line < number ? events - 1 : events, { line, kind, message, ...rest });
    }
    previous = { line: number, seq: parsed.seq, hash: lineHash(bytes) };
    events++;
    onEvent?.(number, parsed.event, previous.hash);
    if (++sincePause === CHAIN_STEP_LINES) {
      sincePause = 0;
      yield;
    }
  }
  return {
    ok: true,
    events,
    head: previous === null ? AUDIT_GENESIS : previous.hash,
    last_seq: previous === null ? 0 : previous.seq,
  };
}

function broken(events: number, chainBreak: ChainBreak): ChainReport {
  return { ok: false, events, break: chainBreak };
}

type Detail = Required<
  Pick<ChainBreak, "detected_at" | "expected_prev" | "found_prev" | "expected_seq" | "found_seq">
>;

function* classify(
  number: number,
  previous: Previous | null,
  seq: number,
  links: boolean,
  currentHash: string,
  detail: Detail,
  rest: Iterator<FileLine>,
): Generator<void, ChainBreak, void> {
  const expectedSeq = detail.expected_seq;
  const before = previous === null ? "the start of the log" : `line ${previous.line}`;
  if (links) {
    // The link to the line before holds, so that line is as written; this line's own seq was changed.
    return {
      ...detail,
      line: number,
      kind: "edited",
      message: `line ${number} was changed: it links to ${before} but says seq ${seq} where ${expectedSeq} follows`,
    };
  }
  if (seq === expectedSeq) {
    if (previous === null) {
      return {
        ...detail,
        line: number,
        kind: "edited",
        message: `line 1 was changed: its prev is not the chain's starting value`,
      };
    }
    // Either line `previous.line` changed, or this line's own prev did. The next line tells them apart: it
    // still links to this line only if this line is as written.
    const after = nextLink(rest);
    if (after !== null && after.prev !== currentHash) {
      return {
        ...detail,
        line: number,
        kind: "edited",
        message: `line ${number} was changed: its prev does not match ${before}, and line ${after.line} does not link to it either`,
      };
    }
    return {
      ...detail,
      line: previous.line,
      kind: "edited",
      message:
        `line ${previous.line} was changed after line ${number} was written: line ${number}'s prev is not line ${previous.line}'s hash` +
        (after === null ? ` (or, as no line follows, line ${number}'s own prev was changed)` : ""),
    };
  }
  if (seq > expectedSeq) {
    const laterSeqs = yield* seqsAfter(rest, expectedSeq, seq);
    if (laterSeqs) {
      return {
        ...detail,
        line: number,
        kind: "reordered",
        message: `line ${number} is out of order: seq ${seq} comes where ${expectedSeq} should, and seq ${expectedSeq} appears later in the log`,
      };
    }
    const missing: [number, number] = [expectedSeq, seq - 1];
    const which =
      missing[0] === missing[1] ? `event ${missing[0]} is` : `events ${missing[0]} to ${missing[1]} are`;
    return {
      ...detail,
      line: number,
      kind: "deleted",
      missing,
      message: `${which} missing before line ${number} (after ${before}): seq jumps from ${expectedSeq - 1} to ${seq} and line ${number} does not link to ${before}`,
    };
  }
  return {
    ...detail,
    line: number,
    kind: "reordered",
    message: `line ${number} is out of order or repeated: seq ${seq} comes after seq ${expectedSeq - 1}`,
  };
}

/** True when a later line has a seq in [from, to): the events "missing" here were moved, not deleted. */
function* seqsAfter(rest: Iterator<FileLine>, from: number, to: number): Generator<void, boolean, void> {
  let sincePause = 0;
  for (let next = rest.next(); next.done !== true; next = rest.next()) {
    if (++sincePause === CHAIN_STEP_LINES) {
      sincePause = 0;
      yield;
    }
    const text = decodeUtf8(next.value.bytes);
    if (text === null) continue;
    const parsed = parseChainedLine(text);
    if (parsed.ok && parsed.seq >= from && parsed.seq < to) return true;
  }
  return false;
}

/** The next line's number and prev, or null when there is none or it has no readable link. */
function nextLink(rest: Iterator<FileLine>): { line: number; prev: string } | null {
  const next = rest.next();
  if (next.done === true) return null;
  const text = decodeUtf8(next.value.bytes);
  if (text === null) return null;
  const parsed = parseChainedLine(text);
  return parsed.ok ? { line: next.value.number, prev: parsed.prev } : null;
}
