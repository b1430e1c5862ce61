import { closeSync } from "node:fs";
import type { Command } from "commander";
import { decodeUtf8, fileLines, openAuditForReading, type FileLine } from "../audit/auditFile.js";
import { closestName } from "../engine/text/didYouMean.js";
import { verifyChain } from "../audit/verifyChain.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { parseStrictJson } from "../engine/json/strictJson.js";
import { compilePolicy, type CompiledPolicy } from "../engine/policy/compile.js";

import { printDiagnostics } from "./contextOptions.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { callsOf, type LogRecord } from "./policy/suggest/calls.js";
import { judgeNames, type PolicyJudgement } from "./policy/suggest/judge.js";
import { narrowPolicy, type Narrowed } from "./policy/suggest/narrow.js";
import { narrowedPolicyYaml } from "./policy/suggest/narrowedYaml.js";
import { suggestedPolicyYaml } from "./policy/suggest/policyYaml.js";
import { suggestReport } from "./policy/suggest/report.js";
import { chooseServer, suggestFrom } from "./policy/suggest/tally.js";
import type { LogSource } from "./policy/suggest/text.js";
import { deliverPolicy, outputFree } from "./policy/policyOutput.js";

/** Exit statuses: a suggestion / the log's chain does not hold, or nothing was called / bad input. */
const EXIT_OK = 0;
const EXIT_REFUSED = 1;
const EXIT_BAD_INPUT = 2;

interface SuggestFlags {
  fromAudit: string;
  policy?: string;
  server?: string;
  output?: string;
  force?: boolean;
}

/**
 * `toolgate policy suggest --from-audit FILE`: after a `--dry-run`, an allowlist of exactly the tools that
 * were called, from the audit log (its chain verified first), with a report of what the policy in force
 * refused on stderr. With `--policy CURRENT`, CURRENT itself narrowed to those tools, everything else of it
 * kept (approvals, schemas, scope, redaction, pins, enforcement), and every entry removed said. See
 * docs/audit.md.
 */
export function registerPolicySuggest(policy: Command): void {
  policy
    .command("suggest")
    .description(
      "suggest a tools.allow of exactly the tools called, from an audit log (a --dry-run's), and report what the policy in force refused",
    )
    .requiredOption(
      "--from-audit <file>",
      "a JSONL audit log written with --audit-log; its chain must verify",
    )
    .option(
      "--policy <file>",
      "the current policy: suggest it narrowed to the tools called (its approvals, schemas, scope, redaction, pins and enforcement kept), and report what it refuses by name and what it allows that nobody called",
    )
    .option(
      "--server <name>",
      "serve's logs: the server to suggest for (required when the log names several)",
    )
    .option("--output <file>", "write the policy here instead of stdout (an existing file is kept)")
    .option("--force", "with --output: replace an existing file")
    .action((flags: SuggestFlags) => {
      process.exit(suggest(flags));
    });
}

function suggest(flags: SuggestFlags): number {
  if (!outputFree(flags.output, flags.force, "policy suggest")) return EXIT_BAD_INPUT;
  let current: { file: string; compiled: CompiledPolicy } | undefined;
  if (flags.policy !== undefined) {
    const { policy, diagnostics } = loadPolicyFile(flags.policy);
    printDiagnostics(diagnostics.filter((d) => d.severity === "error"));
    if (policy === null) return EXIT_BAD_INPUT;
    current = { file: flags.policy, compiled: compilePolicy(policy) };
  }

  const log = readLog(flags.fromAudit);
  if (!log.ok) {
    printError(log.text);
    return log.exit;
  }
  const read = callsOf(log.records);
  if (!read.ok) {
    printError(errorText("E_AUDIT_READ", `${flags.fromAudit}:${read.line}: ${read.problem}`));
    return EXIT_BAD_INPUT;
  }
  const choice = chooseServer(read.calls, flags.server);
  if (!choice.ok) {
    printError(serverProblem(flags, choice.problem, choice.servers));
    return EXIT_BAD_INPUT;
  }

  const suggestion = suggestFrom(read.calls, choice.server);
  let text: string;
  let judged: { file: string; judgement: PolicyJudgement; narrowed: Narrowed } | undefined;
  if (current === undefined) {
    text = suggestedPolicyYaml(suggestion, log.source);
  } else {
    // With the policy in force: that policy, narrowed to the tools called, never weakened (narrow.ts).
    const judgement = judgeNames(current.compiled, suggestion);
    const narrowed = narrowPolicy(current.compiled.policy, suggestion, judgement);
    judged = { file: current.file, judgement, narrowed };
    try {
      text = narrowedPolicyYaml(suggestion, log.source, current.file, narrowed);
    } catch (error) {
      printError(describeError(error));
      return EXIT_BAD_INPUT;
    }
  }
  process.stderr.write(suggestReport(suggestion, log.source, judged));
  if (!deliverPolicy(text, flags.output, "a suggested policy")) return EXIT_BAD_INPUT;
  // An empty allowlist is a valid policy (it allows nothing), but almost never what a dry run was for.
  const allowed = judged === undefined ? suggestion.allow.length : judged.narrowed.allow.length;
  return allowed === 0 ? EXIT_REFUSED : EXIT_OK;
}

type LogRead =
  { ok: true; source: LogSource; records: LogRecord[] } | { ok: false; exit: number; text: string };

/**
 * The log's events, once its chain verifies (with the one verification `toolgate audit verify` uses): a
 * log that was edited, cut or reordered must not become a policy. The lines are parsed as verifyChain
 * walks them, so the file is read once. A line that is not JSON at all is bad input (exit 2, naming the
 * line); any other break of the chain refuses (exit 1).
 */
function readLog(file: string): LogRead {
  const records: LogRecord[] = [];
  const notJson = new Map<number, string>();
  function* inspected(lines: Iterable<FileLine>): Generator<FileLine> {
    for (const line of lines) {
      const text = decodeUtf8(line.bytes);
      const parsed = text === null ? null : parseStrictJson(text);
      if (parsed === null) notJson.set(line.number, "not UTF-8");
      else if (!parsed.ok) {
        if (parsed.code === "E_JSON_SYNTAX") notJson.set(line.number, `not JSON (${parsed.message})`);
      } else if (typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value)) {
        records.push({ line: line.number, event: parsed.value as Record<string, unknown> });
      }
      yield line;
    }
  }

  let fd: number;
  try {
    fd = openAuditForReading(file);
  } catch (error) {
    return { ok: false, exit: EXIT_BAD_INPUT, text: describeError(error) };
  }
  try {
    const report = verifyChain(inspected(fileLines(fd)));
    if (report.ok) {
      return {
        ok: true,
        source: { file, events: report.events, lastSeq: report.last_seq, head: report.head },
        records,
      };
    }
    const at = report.break;
    const why = notJson.get(at.line);
    if (at.kind === "malformed" && why !== undefined) {
      return {
        ok: false,
        exit: EXIT_BAD_INPUT,
        text: errorText("E_AUDIT_READ", `${file}:${at.line}: ${why}`),
      };
    }
    return {
      ok: false,
      exit: EXIT_REFUSED,
      text: errorText(
        "E_AUDIT_CHAIN",
        `${file} does not verify at line ${at.line} (${at.kind}): ${at.message}; no policy is suggested from a log that may have been tampered with`,
        `run \`toolgate audit verify ${file}\` for the details, and suggest from a log whose chain holds`,
      ),
    };
  } catch (error) {
    return { ok: false, exit: EXIT_BAD_INPUT, text: describeError(error) };
  } finally {
    closeSync(fd);
  }
}

/** "did you mean 'fs'?" for a --server close to a server the log names, else the names. */
function suggestServer(server: string, servers: readonly string[], listed: string): string {
  const close = closestName(server, servers);
  return close === undefined
    ? `choose one of ${listed}`
    : `did you mean '${close}'? (the log names ${listed})`;
}

function serverProblem(flags: SuggestFlags, problem: "several" | "unknown", servers: string[]): string {
  const listed = servers.map((s) => `'${s}'`).join(", ");
  if (problem === "several") {
    return errorText(
      "E_USAGE",
      `${flags.fromAudit} records calls to ${servers.length} servers (${listed}), and one allowlist is for one server`,
      `choose one with --server NAME (${listed})`,
    );
  }
  return errorText(
    "E_USAGE",
    servers.length === 0
      ? `--server '${flags.server}': ${flags.fromAudit} names no server (only serve's logs do)`
      : `--server '${flags.server}': no call in ${flags.fromAudit} is to that server; the log names ${listed}`,
    servers.length === 0 ? "leave out --server" : suggestServer(flags.server ?? "", servers, listed),
  );
}
