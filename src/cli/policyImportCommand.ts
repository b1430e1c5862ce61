import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { loadPolicyText } from "../config/policyLoader.js";
import { formatDiagnostic } from "../engine/model/diagnostics.js";
import { printable } from "../engine/text/printable.js";
import { errorText, printError } from "./errorReport.js";
import {
  IMPORT_FORMATS,
  importedPolicyYaml,
  importPolicy,
  type ImportFormat,
  type ImportOutcome,
} from "./policy/import/index.js";
import { deliverPolicy, outputFree } from "./policy/policyOutput.js";

interface ImportFlags {
  from: string;
  server?: string;
  output?: string;
  force?: boolean;
}

/** How many ignored rules the summary line names before it says "…". */
const SHOWN_IGNORED = 5;

/**
 * `toolgate policy import --from FORMAT FILE`: another client's allowlist configuration as a toolgate
 * policy for one MCP server (see src/cli/policy/import/). The policy goes to stdout or `--output`; what
 * could not be carried over exactly goes to stderr. Exit 0 when everything was carried, 1 when something
 * was not (the policy is still written, keeping the stricter reading), 2 for bad input.
 */
export function registerPolicyImport(policy: Command): void {
  policy
    .command("import")
    .description(
      "write a toolgate policy for one MCP server from another client's tool allowlist (claude-code, gemini, codex, vscode)",
    )
    .requiredOption("--from <format>", `the client whose file this is: ${IMPORT_FORMATS.join(", ")}`)
    .option("--server <name>", "the MCP server to import (needed when the file names several)")
    .option("--output <file>", "write the policy here instead of stdout (an existing file is kept)")
    .option("--force", "with --output: replace an existing file")
    .argument("<file>", "the client's configuration file")
    .action((file: string, flags: ImportFlags) => {
      process.exit(runImport(file, flags));
    });
}

function runImport(file: string, flags: ImportFlags): number {
  if (!(IMPORT_FORMATS as readonly string[]).includes(flags.from)) {
    printError(
      errorText("E_USAGE", `unknown --from '${flags.from}'`, `choose one of: ${IMPORT_FORMATS.join(", ")}`),
    );
    return 2;
  }
  if (!outputFree(flags.output, flags.force, "policy import")) return 2;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    printError(errorText("E_USAGE", `cannot read '${file}': ${(error as Error).message}`));
    return 2;
  }
  const result = importPolicy(flags.from as ImportFormat, file, text, flags.server);
  if (!result.ok) {
    const { spot, message, hint } = result.error;
    const where = spot.line === undefined ? file : `${file}:${spot.line}:${spot.column ?? 1}`;
    printError(errorText("E_USAGE", `${where}: ${message}`, hint));
    return 2;
  }
  const yaml = importedPolicyYaml(result.outcome.policy);
  // The file must load as it is written; if it ever did not, writing it would hand over a broken policy.
  const check = loadPolicyText(flags.output ?? "<stdout>", yaml);
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  if (check.policy === null || errors.length > 0) {
    printError(errorText("E_INTERNAL", "the imported policy does not load; nothing was written"));
    for (const d of errors) process.stderr.write(`  ${formatDiagnostic(d)}\n`);
    return 2;
  }
  if (!deliverPolicy(yaml, flags.output, "the imported policy")) return 2;
  process.stderr.write(reportText(file, result.outcome));
  return result.outcome.report.length === 0 ? 0 : 1;
}

/** The "could not carry over" report and the one-line summary of what was ignored, for stderr. */
export function reportText(file: string, outcome: ImportOutcome): string {
  const lines: string[] = [];
  const { report, ignored, switchedOff } = outcome;
  if (switchedOff !== undefined) {
    lines.push(
      `toolgate: server "${outcome.policy.server}" skipped: ${switchedOff.sure ? "switched off" : "perhaps switched off"} by ${switchedOff.by}; the policy allows nothing`,
    );
  }
  if (report.length > 0) {
    lines.push(
      `toolgate: ${report.length} item${report.length === 1 ? "" : "s"} could not be carried over exactly (the policy keeps the stricter reading):`,
    );
    for (const r of report) {
      const where =
        r.line === undefined ? file : `${file}:${r.line}${r.column === undefined ? "" : `:${r.column}`}`;
      lines.push(`  ${where}: ${r.item}: ${r.why}`);
    }
  }
  if (ignored.length > 0) {
    const shown = ignored.slice(0, SHOWN_IGNORED).join(", ") + (ignored.length > SHOWN_IGNORED ? ", …" : "");
    lines.push(
      `toolgate: ignored ${ignored.length} entr${ignored.length === 1 ? "y" : "ies"} about other tools or servers: ${shown}`,
    );
  }
  return lines.map((line) => printable(line) + "\n").join("");
}
