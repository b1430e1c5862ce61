import { readFileSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { loadPolicyFile } from "../config/policyLoader.js";
import { migratePolicy, needsMigration } from "../config/policyMigrate.js";
import { printable } from "../engine/text/printable.js";
import { printDiagnostics } from "./contextOptions.js";
import { errorText, printError } from "./errorReport.js";
import { lstatOrNull, writeAtomically } from "./install/atomicWrite.js";
import { POLICY_EXIT } from "./policy/policyOutput.js";

interface MigrateOptions {
  input: string;
  output?: string;
  stdout?: boolean;
  /** false with `--no-backup`. */
  backup: boolean;
  force?: boolean;
  check?: boolean;
}

/** The copy of the v1 original an in-place migration keeps: `policy.yaml` → `policy.yaml.v1.bak`. */
export function backupPath(input: string): string {
  return `${input}.v1.bak`;
}

/**
 * `toolgate policy migrate`: the reference's "to write the v2 form to disk" is `migrate --input policy.yaml`
 * followed by `validate --deny-deprecations --input policy.yaml`, so without `--output` or `--stdout` the
 * input file itself is rewritten (whole, by a rename: a reader sees the v1 file or the v2 one, never half).
 */
export function registerPolicyMigrate(policy: Command): void {
  policy
    .command("migrate")
    .description(
      "rewrite a v1 policy as v2: in place keeping <input>.v1.bak, or to --output, or to --stdout; a v2 file stays untouched",
    )
    .requiredOption(
      "--input <file>",
      "policy file (v1 or v2); rewritten in place unless --output or --stdout",
    )
    .option("--output <file>", "write the v2 form here and leave --input as it is")
    .option("--stdout", "print the v2 form and write no file")
    .option("--no-backup", "rewrite in place without keeping <input>.v1.bak")
    .option("--force", "replace an existing <input>.v1.bak (otherwise an in-place rewrite refuses to run)")
    .option("--check", "write nothing; exit 1 when the file needs migrating, 0 when it is already v2")
    .action((opts: MigrateOptions) => {
      process.exitCode = runMigrate(opts);
    });
}

function runMigrate(opts: MigrateOptions): number {
  if (opts.stdout === true && opts.output !== undefined) {
    return usage("--stdout and --output both say where the v2 form goes; give one of them");
  }
  const { policy, diagnostics } = loadPolicyFile(opts.input);
  // Deprecation warnings are what migrate resolves; only errors are worth showing here.
  printDiagnostics(diagnostics.filter((d) => d.severity === "error"));
  if (policy === null) return POLICY_EXIT.badInput;
  const needed = needsMigration(policy);
  const input = printable(opts.input);
  if (opts.check === true) {
    process.stdout.write(
      needed ? `${input}: needs migration to version 2.0\n` : `${input}: already version 2.0\n`,
    );
    return needed ? POLICY_EXIT.needsMigration : POLICY_EXIT.ok;
  }
  const source = readFileSync(opts.input, "utf8");
  // An already-v2 file is left exactly as it is (its comments and layout are the author's); only a file
  // that needs migrating is rewritten, keeping its header comment.
  const text = needed ? migratePolicy(policy, source) : source;

  if (opts.stdout === true) {
    if (!needed) process.stderr.write(`toolgate: ${input} is already version 2.0; printed unchanged\n`);
    process.stdout.write(text);
    return POLICY_EXIT.ok;
  }
  if (opts.output !== undefined && !sameFile(opts.output, opts.input)) {
    if (!write(realTarget(opts.output), text)) return POLICY_EXIT.badInput;
    const how = needed ? "the version 2.0 form" : "it unchanged (already version 2.0)";
    process.stderr.write(`toolgate: wrote ${how} of ${input} to ${printable(opts.output)}\n`);
    return POLICY_EXIT.ok;
  }
  if (!needed) {
    process.stderr.write(`toolgate: ${input} is already version 2.0; left unchanged, no backup written\n`);
    return POLICY_EXIT.ok;
  }
  return rewriteInPlace(opts, source, text);
}

/** Backup first (refused when one exists, unless --force), then the input replaced whole. */
function rewriteInPlace(opts: MigrateOptions, source: string, text: string): number {
  const input = printable(opts.input);
  const backup = backupPath(opts.input);
  if (opts.backup) {
    if (lstatOrNull(backup) !== null && opts.force !== true) {
      printError(
        errorText(
          "E_POLICY_MIGRATE_BACKUP",
          `${printable(backup)} exists (an earlier migration's copy of the v1 file?); nothing was changed`,
          "move it away, add --force to replace it, add --no-backup to keep no copy, or write elsewhere with --output",
        ),
      );
      return POLICY_EXIT.badInput;
    }
    if (!write(backup, source)) return POLICY_EXIT.badInput;
  }
  // The file a symbolic link names is the one rewritten; the link stays a link.
  if (!write(realTarget(opts.input), text)) {
    process.stderr.write(`toolgate: ${input} is unchanged (still version 1.0)\n`);
    return POLICY_EXIT.badInput;
  }
  const kept = opts.backup
    ? `the v1 original is kept as ${printable(backup)}`
    : "no backup kept (--no-backup)";
  process.stderr.write(`toolgate: migrated ${input} to version 2.0 in place; ${kept}\n`);
  return POLICY_EXIT.ok;
}

/** Written whole (temporary file, flush, rename); false, with E_POLICY_MIGRATE_WRITE printed, when it fails. */
function write(file: string, text: string): boolean {
  try {
    writeAtomically(file, text);
    return true;
  } catch (error) {
    printError(
      errorText(
        "E_POLICY_MIGRATE_WRITE",
        `cannot write ${printable(file)}: ${error instanceof Error ? error.message : String(error)}`,
        "check that the directory exists and is writable",
      ),
    );
    return false;
  }
}

function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** `--output` naming the input itself (by any path) is an in-place rewrite, with its backup. */
function sameFile(a: string, b: string): boolean {
  return realTarget(resolve(a)) === realTarget(resolve(b));
}

function usage(message: string): number {
  printError(errorText("E_USAGE", message));
  return POLICY_EXIT.badInput;
}
