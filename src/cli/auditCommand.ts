import type { Command } from "commander";
import { loadVerifyKeys } from "../audit/auditKeys.js";
import type { CheckpointKeys } from "../audit/checkpoint.js";
import { readExpectedCheckpoint, type ExpectedCheckpoint } from "../audit/expectedCheckpoint.js";
import { ToolgateError } from "../engine/errors.js";
import { printableLines } from "../engine/text/printable.js";
import { registerAuditKeygen } from "./audit/keygenCommand.js";
import { registerAuditReceipt } from "./audit/receiptCommand.js";
import { EXIT_BROKEN, EXIT_UNREADABLE, verifyOne, type Verified } from "./audit/verifyOne.js";
import { describeError, printError } from "./errorReport.js";
import { formatOption } from "./infoCommand.js";
import { collect } from "./optionParsers.js";

interface VerifyFlags {
  format: "text" | "json";
  key: string[];
  expectCheckpoint: string[];
}

export function registerAuditCommand(program: Command): void {
  const audit = program.command("audit").description("audit-log tools");
  audit
    .command("verify")
    .description(
      "check an audit log's hash chain (and with --key its signed checkpoints): exit 0 when everything verifies, 1 when anything is broken, 2 for bad input",
    )
    .argument(
      "<files...>",
      "JSONL audit logs written with --audit-log (several: one per replica, each its own chain)",
    )
    .option(
      "--key <file>",
      "an Ed25519 public key (PEM) the logs' checkpoints are signed with (repeatable); checks every checkpoint and says how much is signed",
      collect,
      [],
    )
    .option(
      "--expect-checkpoint <file>",
      "with --key: a checkpoint as --checkpoint-publish delivered it; the log it names must still have it (repeatable)",
      collect,
      [],
    )
    .option(
      "--format <format>",
      "text or json (one object; a list of them for several files)",
      formatOption,
      "text",
    )
    .action((files: string[], flags: VerifyFlags) => {
      process.exit(verifyCommand(files, flags));
    });
  registerAuditKeygen(audit);
  registerAuditReceipt(audit);
}

function verifyCommand(files: string[], flags: VerifyFlags): number {
  let keys: CheckpointKeys | null = null;
  let expected: ExpectedCheckpoint[] = [];
  try {
    if (flags.expectCheckpoint.length > 0 && flags.key.length === 0) {
      throw new ToolgateError(
        "E_USAGE",
        "--expect-checkpoint needs the public key its signature is checked with: give --key FILE",
      );
    }
    if (flags.key.length > 0) keys = loadVerifyKeys(flags.key);
    if (keys !== null) expected = flags.expectCheckpoint.map((file) => readExpectedCheckpoint(file, keys!));
  } catch (error) {
    printError(describeError(error));
    return EXIT_UNREADABLE;
  }
  const matched = new Set<ExpectedCheckpoint>();
  const results = files.map((file) => verifyOne(file, keys, expected, matched));
  for (const e of expected) if (!matched.has(e)) results.push(unmatched(e));
  if (flags.format === "json") {
    const objects = results.map((r) => r.json);
    process.stdout.write(JSON.stringify(results.length === 1 ? objects[0] : objects, null, 2) + "\n");
  } else {
    for (const r of results) r.print();
  }
  // The worst of them: bad input (2) over anything broken (1) over everything verified.
  return Math.max(...results.map((r) => r.status));
}

/** A published checkpoint of a log not among those given: what it vouches for cannot be found. */
function unmatched(e: ExpectedCheckpoint): Verified {
  const message = `the checkpoint is for log ${e.payload.log_id} (seq 1..${e.payload.seq} signed), and no log given has that id: the log's first line was changed, or the log is not among those given`;
  return {
    status: EXIT_BROKEN,
    json: { file: e.file, ok: false, finding: { code: "E_AUDIT_LOG_UNKNOWN", message } },
    print: () =>
      void process.stdout.write(
        printableLines(`${e.file}: BROKEN (log not found) E_AUDIT_LOG_UNKNOWN\n  ${message}\n`),
      ),
  };
}
