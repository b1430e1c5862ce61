import { closeSync } from "node:fs";
import type { Command } from "commander";
import { fileLines, openAuditForReading } from "../audit/auditFile.js";
import { verifyChain, type ChainReport } from "../audit/verifyChain.js";
import { ToolgateError } from "../engine/errors.js";
import { describeError, printError } from "./errorReport.js";
import { formatOption } from "./infoCommand.js";
import { printableLines } from "../engine/text/printable.js";

/** Exit statuses of `audit verify`: the chain holds / a link is broken / the file could not be read. */
const EXIT_VALID = 0;
const EXIT_BROKEN = 1;
const EXIT_UNREADABLE = 2;

interface VerifyFlags {
  format: "text" | "json";
}

export function registerAuditCommand(program: Command): void {
  const audit = program.command("audit").description("audit-log tools");
  audit
    .command("verify")
    .description(
      "check an audit log's hash chain: exit 0 when every link holds, 1 at the first broken or missing link, 2 when the file cannot be read",
    )
    .argument(
      "<files...>",
      "JSONL audit logs written with --audit-log (several: one per replica, each its own chain)",
    )
    .option(
      "--format <format>",
      "text or json (one object; a list of them for several files)",
      formatOption,
      "text",
    )
    .action((files: string[], flags: VerifyFlags) => {
      const results = files.map((file) => verify(file));
      if (flags.format === "json") {
        const objects = results.map((r) => r.json);
        process.stdout.write(JSON.stringify(files.length === 1 ? objects[0] : objects, null, 2) + "\n");
      } else {
        for (const r of results) r.print();
      }
      // The worst of them: a file that cannot be read (2) over a broken chain (1) over chains that hold.
      process.exit(Math.max(...results.map((r) => r.status)));
    });
}

interface Verified {
  status: number;
  json: unknown;
  print(): void;
}

function verify(file: string): Verified {
  let report: ChainReport;
  try {
    const fd = openAuditForReading(file);
    try {
      report = verifyChain(fileLines(fd));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
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
  const verified = report;
  return {
    status: verified.ok ? EXIT_VALID : EXIT_BROKEN,
    json: { file, ...verified },
    print: () => void process.stdout.write(printableLines(renderReport(file, verified))),
  };
}

function renderReport(file: string, report: ChainReport): string {
  if (report.ok) {
    const count = report.events === 1 ? "1 event" : `${report.events} events`;
    return `${file}: OK, ${count}, every link holds (seq 1..${report.last_seq}, head ${report.head})\n`;
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
  return lines.join("\n") + "\n";
}
