import { InvalidArgumentError, type Command } from "commander";
import { printableLines } from "../engine/text/printable.js";
import { loadActivePolicy, loadContext } from "./contextLoader.js";
import { addContextOptions, type ContextFlags } from "./contextOptions.js";
import { errorText, printError } from "./errorReport.js";
import { candidateGates } from "../replay/candidateGates.js";
import { replayJson, replayMarkdown, replayText, type ReplayReport } from "../replay/render.js";
import { replayLogs } from "../replay/replayLogs.js";

/** Exit statuses: replayed (and nothing --fail-on names changed) / --fail-on's kind changed, or a chain broken / bad input. */
const EXIT_OK = 0;
const EXIT_FAIL = 1;
const EXIT_BAD_INPUT = 2;

type FailOn = "newly-allowed" | "newly-denied" | "any";

interface ReplayFlags extends ContextFlags {
  policy: string;
  format: "text" | "json" | "markdown";
  failOn?: FailOn;
}

function formatChoice(value: string): ReplayFlags["format"] {
  if (value !== "text" && value !== "json" && value !== "markdown") {
    throw new InvalidArgumentError("expected text, json or markdown");
  }
  return value;
}

function failOnChoice(value: string): FailOn {
  if (value !== "newly-allowed" && value !== "newly-denied" && value !== "any") {
    throw new InvalidArgumentError("expected newly-allowed, newly-denied or any");
  }
  return value;
}

/**
 * `toolgate replay --policy CANDIDATE LOG...`: every call and list recorded in audit logs decided again
 * under a candidate policy, and the verdict diff printed. See docs/changing-policies.md.
 */
export function registerReplayCommand(program: Command): void {
  const command = program
    .command("replay")
    .description(
      "decide every call and list recorded in audit logs again under a candidate policy and print what changes (chains verified first)",
    )
    .argument(
      "<logs...>",
      "JSONL audit logs written with --audit-log (--audit-args for the call stage); several: one per replica",
    )
    .requiredOption("--policy <file>", "the candidate policy");
  // --config-dir (and a context's --role, --agent, …): decide as serve does, the directory's layers first.
  addContextOptions(command, false)
    .option("--format <format>", "text, json or markdown (a pull request comment)", formatChoice, "text")
    .option(
      "--fail-on <kind>",
      "exit 1 when calls of this kind changed: newly-allowed, newly-denied or any (also newly hidden or visible tools)",
      failOnChoice,
    )
    .action((logs: string[], flags: ReplayFlags) => {
      process.exit(replay(logs, flags));
    });
}

function replay(logs: string[], flags: ReplayFlags): number {
  let dir = null;
  let policy;
  if (flags.configDir !== undefined) {
    const loaded = loadContext(flags);
    if (loaded === null || loaded.policy === null) return EXIT_BAD_INPUT;
    dir = loaded;
    policy = loaded.policy;
  } else {
    const active = loadActivePolicy({ path: flags.policy, shown: flags.policy, from: "flag" });
    if (active === null || active === "unusable") return EXIT_BAD_INPUT;
    policy = active;
  }
  const result = replayLogs(logs, candidateGates(policy, dir));
  if (!result.ok) {
    const at = result.line > 0 ? `${result.file}:${result.line}` : result.file;
    if (result.kind === "chain") {
      printError(
        errorText(
          "E_AUDIT_CHAIN",
          `${at}: the log's chain does not hold (${result.problem}); nothing is replayed from a log that may have been edited`,
          `run \`toolgate audit verify ${result.file}\` for the details`,
        ),
      );
      return EXIT_FAIL;
    }
    printError(
      errorText(
        "E_REPLAY_INPUT",
        `${at}: ${result.problem}`,
        "replay logs written by toolgate's --audit-log, unedited",
      ),
    );
    return EXIT_BAD_INPUT;
  }
  const report: ReplayReport = {
    policy: { file: flags.policy, digest: policy.compiled.policy.digest },
    logs: result.logs,
    ...result.diff,
  };
  const render =
    flags.format === "json" ? replayJson : flags.format === "markdown" ? replayMarkdown : replayText;
  process.stdout.write(flags.format === "json" ? render(report) : printableLines(render(report)));
  return failed(report, flags.failOn) ? EXIT_FAIL : EXIT_OK;
}

function failed(report: ReplayReport, failOn: FailOn | undefined): boolean {
  const allowed = report.newly_allowed.length > 0 || report.newly_visible.length > 0;
  const denied = report.newly_denied.length > 0 || report.newly_hidden.length > 0;
  if (failOn === "newly-allowed") return allowed;
  if (failOn === "newly-denied") return denied;
  return failOn === "any" && (allowed || denied);
}
