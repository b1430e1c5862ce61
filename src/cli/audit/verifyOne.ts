import { closeSync } from "node:fs";
import { fileLines, openAuditForReading } from "../../audit/auditFile.js";
import type { CheckpointKeys } from "../../audit/checkpoint.js";
import { compareExpected, type ExpectedCheckpoint } from "../../audit/expectedCheckpoint.js";
import { verifyChain, type ChainReport } from "../../audit/verifyChain.js";
import { verifySignedFile, type SignedFinding, type SignedLog } from "../../audit/verifySigned.js";
import { ToolgateError } from "../../engine/errors.js";
import { printableLines } from "../../engine/text/printable.js";
import { describeError, printError } from "../errorReport.js";

/** Exit statuses of `audit verify`: everything verifies / something is broken / bad input. */
export const EXIT_VALID = 0;
export const EXIT_BROKEN = 1;
export const EXIT_UNREADABLE = 2;

/** One file's (or one published checkpoint's) outcome: its exit status, its JSON object, its text. */
export interface Verified {
  status: number;
  json: unknown;
  print(): void;
}

/**
 * One log. Without keys: its chain (verifyChain). With keys: its chain and its signed checkpoints, and
 * each published checkpoint of it among `expected` (matched by log id; `matched` collects those used).
 */
export function verifyOne(
  file: string,
  keys: CheckpointKeys | null,
  expected: readonly ExpectedCheckpoint[],
  matched: Set<ExpectedCheckpoint>,
): Verified {
  let report: ChainReport | SignedLog;
  try {
    if (keys === null) {
      const fd = openAuditForReading(file);
      try {
        report = verifyChain(fileLines(fd));
      } finally {
        closeSync(fd);
      }
    } else {
      report = verifySignedFile(
        file,
        keys,
        expected.map((e) => e.seq),
      );
    }
  } catch (error) {
    return unreadable(file, error);
  }
  if (!("chain" in report)) return chainOnly(file, report);
  const signed = report;
  const mine = expected.filter((e) => e.payload.log_id === signed.logId);
  for (const e of mine) matched.add(e);
  const finding = signedFinding(signed, mine);
  const lines = chainOnlyText(file, signed.chain, finding);
  if (signed.chain.ok) lines.push(...signedSummary(signed, mine, finding));
  const ok = signed.chain.ok && finding === null;
  const json: Record<string, unknown> = {
    file,
    ...signed.chain,
    ok,
    log_id: signed.logId,
    signed: {
      checkpoints: signed.checkpoints,
      last: signed.last === null ? null : { ...signed.last, payload: undefined },
      unsigned: signed.unsigned,
      expected: mine.map((e) => ({ file: e.file, seq: e.seq })),
    },
  };
  if (finding !== null) json.finding = finding;
  return {
    status: ok ? EXIT_VALID : EXIT_BROKEN,
    json,
    print: () => void process.stdout.write(printableLines(lines.join("\n") + "\n")),
  };
}

/** The first thing wrong beyond the chain: a checkpoint, a published checkpoint missing, or no signature. */
function signedFinding(log: SignedLog, expected: readonly ExpectedCheckpoint[]): SignedFinding | null {
  if (!log.chain.ok) return null;
  if (log.finding !== null) return log.finding;
  for (const e of expected) {
    const found = compareExpected(log, e);
    if (found !== null) return found;
  }
  if (log.last === null && log.chain.events > 0) {
    return {
      code: "E_CHECKPOINT_NONE",
      title: "no signed checkpoint",
      message: `every link holds, but no checkpoint signed by a key given vouches for any of its ${log.chain.events} events: the log may have been rewritten whole (or was written without --audit-signing-key)`,
    };
  }
  return null;
}

function signedSummary(
  log: SignedLog,
  expected: readonly ExpectedCheckpoint[],
  finding: SignedFinding | null,
): string[] {
  const out = [`  log_id ${log.logId ?? "(empty log)"}`];
  const last = log.last;
  const after = log.unsigned === 1 ? "1 event after it unsigned" : `${log.unsigned} events after it unsigned`;
  out.push(
    last === null
      ? `  signed: no checkpoint${finding === null ? "" : " verified"}`
      : `  signed: ${log.checkpoints === 1 ? "1 checkpoint" : `${log.checkpoints} checkpoints`}; the last at line ${last.line} (seq ${last.seq}, ${last.time}, ${last.trigger}) by key ${last.key_id}, covering seq 1..${last.covers}; ${after}`,
  );
  for (const e of expected) {
    if (finding === null) out.push(`  published checkpoint seq ${e.seq} (${e.file}): in the log`);
  }
  return out;
}

function chainOnly(file: string, report: ChainReport): Verified {
  return {
    status: report.ok ? EXIT_VALID : EXIT_BROKEN,
    json: { file, ...report },
    print: () =>
      void process.stdout.write(printableLines(chainOnlyText(file, report, null).join("\n") + "\n")),
  };
}

function unreadable(file: string, error: unknown): Verified {
  const problem =
    error instanceof ToolgateError
      ? error
      : new ToolgateError("E_AUDIT_READ", `cannot read audit log '${file}': ${(error as Error).message}`);
  return {
    status: EXIT_UNREADABLE,
    json: { file, ok: false, error: { code: problem.code, message: problem.message } },
    print: () => printError(describeError(problem)),
  };
}

/** The chain's lines: OK, or BROKEN with the first break; or the signed finding's BROKEN lines. */
function chainOnlyText(file: string, report: ChainReport, finding: SignedFinding | null): string[] {
  if (report.ok && finding !== null) {
    const where = finding.line === undefined ? "" : ` at line ${finding.line}`;
    const status = finding.code === "E_CHECKPOINT_NONE" ? "UNSIGNED" : "BROKEN";
    const count = report.events === 1 ? "1 event" : `${report.events} events`;
    return [
      `${file}: ${status}${where} (${finding.title}) ${finding.code}`,
      `  ${finding.message}`,
      `  chain: ${count}, every link holds (seq 1..${report.last_seq}, head ${report.head})`,
    ];
  }
  if (report.ok) {
    const count = report.events === 1 ? "1 event" : `${report.events} events`;
    return [`${file}: OK, ${count}, every link holds (seq 1..${report.last_seq}, head ${report.head})`];
  }
  const b = report.break;
  const lines = [`${file}: BROKEN at line ${b.line} (${b.kind})`, `  ${b.message}`];
  if (b.expected_prev !== undefined) {
    lines.push(`  line ${b.detected_at}: expected prev ${b.expected_prev}`);
    lines.push(`  line ${b.detected_at}:    found prev ${b.found_prev}`);
  }
  if (b.expected_seq !== undefined && b.expected_seq !== b.found_seq) {
    lines.push(`  line ${b.detected_at}: expected seq ${b.expected_seq}, found ${b.found_seq}`);
  }
  const verified = report.events === 1 ? "1 event" : `${report.events} events`;
  lines.push(`  ${verified} verified before the break`);
  return lines;
}
