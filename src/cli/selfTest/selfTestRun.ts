import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { PolicyCatalog } from "../../config/catalogFile.js";
import type { ConfigDir } from "../../engine/model/configDir.js";
import type { RealpathHook } from "../../engine/model/decision.js";
import { formatDiagnostic, type Diagnostic } from "../../engine/model/diagnostics.js";
import type { LogFields } from "../../engine/model/logFields.js";
import type { SourceRef } from "../../engine/model/source.js";
import { runPolicyTests, type TestSubject } from "../../session/policyTestRun.js";
import { errorText } from "../errorReport.js";
import { failureLines, totalsLine, totalsOf, type FileResults } from "../render/policyTestReport.js";

/**
 * The start-up self-test of wrap and serve (docs/changing-policies.md, "Self-test"): the cases of a policy
 * test file, run by runPolicyTests over the gateway's own configuration, at start and before every reload
 * is applied. A case that fails, or a self-test that cannot run, refuses the start (or the reload).
 */

/** The test file: `--self-test FILE`, else config.yaml's `tests:` (relative to the directory). */
export interface SelfTestFile {
  path: string;
  /** As written on the command line or in config.yaml. */
  shown: string;
  /** Where config.yaml names it (absent for the flag). */
  at?: SourceRef;
}

/** The flag wins; else config.yaml's `tests:`; else no self-test. */
export function selfTestFile(flag: string | undefined, config: ConfigDir | null): SelfTestFile | null {
  if (flag !== undefined) return { path: flag, shown: flag };
  const written = config?.global.tests;
  if (written === undefined || written === null) return null;
  const path = isAbsolute(written.path) ? written.path : join(config!.dir, written.path);
  return { path, shown: written.path, at: written.at };
}

export interface SelfTestInput {
  file: SelfTestFile;
  subject: TestSubject;
  /** The catalogs of the servers the cases name (`named`), as the gateway reaches them. */
  catalogs(named: readonly string[]): Promise<PolicyCatalog>;
  /** The tokens file `context: {token: NAME}` names entries of (serve's --tokens). */
  tokens?: string;
  realpath?: RealpathHook;
}

export type SelfTestLog = (line: string, fields?: LogFields) => void;

/**
 * Runs the self-test and prints its outcome: on success one line; otherwise each problem (a test file's
 * diagnostics, a catalog that could not be read, one line per failing case with its file:line), then an
 * E_SELF_TEST_FAILED line ending in `consequence`. Resolves with the problem lines ([] when every case
 * passed), which a refused reload records in its audit event.
 */
export async function runSelfTest(
  input: SelfTestInput,
  consequence: string,
  log: SelfTestLog,
): Promise<string[]> {
  const { file } = input;
  const lines: string[] = [];
  const say = (line: string, code: string): void => {
    lines.push(line);
    log(line, { code });
  };
  const missing = missingFile(file);
  if (missing !== null) {
    say(formatDiagnostic(missing), missing.code);
    return verdict(file, lines, "could not run (see above)", consequence, log);
  }
  const run = await runPolicyTests(file.path, {
    subject: input.subject,
    catalog: (_config, named) => input.catalogs(named),
    ...(input.tokens === undefined ? {} : { tokens: input.tokens }),
    ...(input.realpath === undefined ? {} : { realpath: input.realpath }),
  });
  if (!run.ok) {
    for (const d of run.diagnostics) say(formatDiagnostic(d), d.code);
    return verdict(file, lines, "could not run (see above)", consequence, log);
  }
  const results: FileResults[] = [{ file: run.file, policy: run.policy, results: run.results }];
  const totals = totalsOf(results);
  if (totals.failed === 0 && totals.errors === 0) {
    log(`self-test ${file.shown}: ${totalsLine(results)}`, { code: "I_SELF_TEST_PASSED" });
    return [];
  }
  for (const line of failureLines(results)) {
    say(line, line.includes(" E_POLICY_TEST_CONTEXT ") ? "E_POLICY_TEST_CONTEXT" : "E_POLICY_TEST_FAILED");
  }
  const first = run.results.find((r) => r.kind === "unusable" || !r.passed)!;
  const at = `first: ${first.case.at.file}:${first.case.at.line} '${first.case.name}'`;
  return verdict(file, lines, `did not pass (${totalsLine(results)}; ${at})`, consequence, log);
}

/** The last line: `error E_SELF_TEST_FAILED: self-test FILE …; <consequence>`. */
function verdict(
  file: SelfTestFile,
  lines: string[],
  what: string,
  consequence: string,
  log: SelfTestLog,
): string[] {
  // One line (a hint on a line of its own would be escaped in a log line): what to do is in docs/codes.md.
  const line = errorText(
    "E_SELF_TEST_FAILED",
    `the self-test ${file.shown} ${what}; ${consequence}`,
  ).trimEnd();
  lines.push(line);
  log(line);
  return lines;
}

/** A test file that is not there: at config.yaml's `tests:` line when that names it. */
function missingFile(file: SelfTestFile): Diagnostic | null {
  if (existsSync(file.path)) return null;
  const where = file.at ?? { file: file.path, path: "", line: 0, column: 0 };
  return {
    severity: "error",
    code: "E_POLICY_TEST_FILE",
    message: `the self-test file ${file.path} does not exist`,
    hint:
      file.at === undefined
        ? "check the path given with --self-test"
        : "check the path in `tests:` (relative to the configuration directory)",
    ...where,
  };
}
