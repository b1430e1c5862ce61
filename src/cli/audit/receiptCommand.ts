import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { loadVerifyKeys } from "../../audit/auditKeys.js";
import { proveReceipt, readReceipt, type ReceiptVerdict } from "../../audit/verifyReceipt.js";
import { ToolgateError } from "../../engine/errors.js";
import { parseStrictJson } from "../../engine/json/strictJson.js";
import { printableLines } from "../../engine/text/printable.js";
import { describeError, printError } from "../errorReport.js";
import { formatOption } from "../infoCommand.js";
import { collect } from "../optionParsers.js";

const EXIT_PROVEN = 0;
const EXIT_REFUSED = 1;
const EXIT_BAD_INPUT = 2;

/**
 * `toolgate audit receipt RECEIPT.json --key PUB LOG...`: proves that the decision a receipt names is in the
 * signed log (its line, its decision, a checkpoint after it), or says why not: exit 0 proven, 1 refused,
 * 2 bad input.
 */
export function registerAuditReceipt(audit: Command): void {
  audit
    .command("receipt")
    .description(
      'prove a receipt (the _meta "io.toolgate/receipt" of a call\'s answer) against the signed logs: exit 0 proven, 1 refused, 2 bad input',
    )
    .argument("<receipt>", "a JSON file: the receipt, or the whole answer that carried it")
    .argument("<logs...>", "the audit logs (one per replica; the receipt's log_id picks one)")
    .option(
      "--key <file>",
      "an Ed25519 public key (PEM) the checkpoints are signed with (repeatable)",
      collect,
      [],
    )
    .option("--format <format>", "text or json", formatOption, "text")
    .action((receiptFile: string, logs: string[], flags: { key: string[]; format: "text" | "json" }) => {
      process.exit(receiptCommand(receiptFile, logs, flags));
    });
}

function receiptCommand(
  receiptFile: string,
  logs: string[],
  flags: { key: string[]; format: "text" | "json" },
): number {
  let verdict: ReceiptVerdict;
  try {
    if (flags.key.length === 0) {
      throw new ToolgateError(
        "E_USAGE",
        "a receipt is proven by signed checkpoints: give their public key with --key FILE",
      );
    }
    const keys = loadVerifyKeys(flags.key);
    verdict = proveReceipt(readReceipt(readJson(receiptFile)), keys, logs);
  } catch (error) {
    printError(describeError(error));
    return EXIT_BAD_INPUT;
  }
  if (flags.format === "json") {
    const json = verdict.ok
      ? {
          receipt: receiptFile,
          ok: true,
          log: verdict.log,
          line: verdict.line,
          checkpoint: { ...verdict.checkpoint, payload: undefined },
        }
      : { receipt: receiptFile, ...verdict };
    process.stdout.write(JSON.stringify(json, null, 2) + "\n");
  } else {
    process.stdout.write(printableLines(render(receiptFile, verdict)));
  }
  return verdict.ok ? EXIT_PROVEN : EXIT_REFUSED;
}

function render(file: string, v: ReceiptVerdict): string {
  if (!v.ok) return `${file}: REFUSED ${v.code}${v.log === undefined ? "" : ` (${v.log})`}\n  ${v.message}\n`;
  const e = v.event;
  const what = [e.event, e.tool ?? e.method ?? e.name].filter((x) => typeof x === "string").join(" ");
  const c = v.checkpoint;
  return (
    `${file}: PROVEN: seq ${String(e.seq)} (${what}: ${String(e.decision)}) is line ${v.line} of ${v.log}\n` +
    `  vouched for by the checkpoint at line ${c.line} (seq ${c.seq}, ${c.time}) signed by key ${c.key_id}, covering seq 1..${c.covers}\n`
  );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ToolgateError(
      "E_RECEIPT_INPUT",
      `cannot read the receipt ${file}: ${(error as Error).message}`,
    );
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) throw new ToolgateError("E_RECEIPT_INPUT", `${file} is not JSON: ${parsed.message}`);
  return parsed.value;
}
