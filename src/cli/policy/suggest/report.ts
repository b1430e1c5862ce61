import { appendAll } from "../../../engine/model/diagnostics.js";
import { printable } from "../../../engine/text/printable.js";
import type { PolicyJudgement } from "./judge.js";
import { addedNote, type Narrowed } from "./narrow.js";
import { removedLines } from "./narrowedYaml.js";
import { byCodeUnits, type Suggestion, type ToolUse } from "./tally.js";
import { outcomeText, plural, quoted, ruleText, type LogSource } from "./text.js";

/**
 * The report `policy suggest` prints on stderr beside the policy: what the policy in force refused (as the
 * log recorded it, or as `--policy` decides the names), what it allows that nobody called, and what was
 * left out of the suggestion and why. Pure; every line ends in a newline, the first starts `toolgate: `.
 */
export function suggestReport(
  suggestion: Suggestion,
  source: LogSource,
  judged?: { file: string; judgement: PolicyJudgement; narrowed?: Narrowed },
): string {
  const uses = [...suggestion.allow, ...suggestion.hidden, ...suggestion.inexact];
  const lines = [
    `toolgate: ${printable(source.file)}: chain verified (${plural(source.events, "event")}, seq 1..${source.lastSeq}, head ${source.head})`,
    `  ${plural(suggestion.calls, "call")} of ${plural(uses.length, "tool")}${suggestion.server === null ? "" : ` to server ${quoted(suggestion.server)}`}; ${plural(suggestion.allow.length, "tool")} in the suggested tools.allow`,
  ];
  // appendAll, not push(...): a policy of 250,000 entries lists as many never called.
  appendAll(
    lines,
    judged === undefined ? recordedRefusals(uses) : judgedLines(judged.file, judged.judgement),
  );
  section(
    lines,
    "called but hidden from the list, left out of tools.allow (add one only if you mean it):",
    suggestion.hidden,
  );
  section(
    lines,
    "called, but no tools.allow entry names it exactly (a * first or last makes a wildcard), left out:",
    suggestion.inexact,
  );
  if (suggestion.noServer > 0) {
    lines.push(`${plural(suggestion.noServer, "call")} to names no server has (server null), left out`);
  }
  if (suggestion.allow.length === 0) {
    lines.push(
      "nothing was called through the name rules of the policy in force: the suggested tools.allow is empty, which allows nothing",
    );
  }
  if (judged?.narrowed !== undefined) appendAll(lines, narrowedLines(judged.file, judged.narrowed));
  return lines.join("\n") + "\n";
}

/** Every outcome other than `allow`, per tool, as the events' `decision`, `code` and `rule` say. */
function recordedRefusals(uses: readonly ToolUse[]): string[] {
  const refusals = uses
    .flatMap((use) =>
      use.outcomes
        .filter((o) => o.decision !== "allow")
        .map((o) => ({ tool: use.tool, text: `${plural(o.count, "call")}, ${outcomeText(o)}` })),
    )
    .sort((a, b) => byCodeUnits(a.tool, b.tool));
  if (refusals.length === 0)
    return ["the policy in force refused none of these calls, as the log recorded them"];
  return [
    "refused by the policy in force, as the log recorded it:",
    ...refusals.map((r) => `  ${printable(r.tool)}: ${r.text}`),
  ];
}

function judgedLines(file: string, judgement: PolicyJudgement): string[] {
  const name = printable(file);
  const lines: string[] = [];
  // Only names can be judged again: the log holds the arguments' digests, not the arguments.
  const scope = "by name (the log holds no arguments, so its schemas, scopes and approvals are not judged)";
  if (judgement.refused.length === 0) lines.push(`${name} refuses none of these tools ${scope}`);
  else {
    lines.push(`refused by ${name} ${scope}:`);
    for (const r of judgement.refused) {
      const rule = ruleText(r.rule);
      lines.push(
        `  ${printable(r.tool)}: ${plural(r.calls, "call")}, ${printable(r.code)}${rule === "" ? "" : ` (${rule})`}`,
      );
    }
  }
  if (judgement.neverCalled === null) {
    lines.push(`${name} has no tools.allow: every tool it does not deny is allowed, called or not`);
  } else if (judgement.neverCalled.length === 0) {
    lines.push(`every tool ${name} allows by exact name was called`);
  } else {
    lines.push(`allowed by ${name} but never called:`);
    for (const tool of judgement.neverCalled) lines.push(`  ${printable(tool)}`);
  }
  return lines;
}

function section(lines: string[], title: string, uses: readonly ToolUse[]): void {
  if (uses.length === 0) return;
  lines.push(title);
  for (const use of uses) lines.push(`  ${printable(use.tool)} (${plural(use.calls, "call")})`);
}

/** With --policy: what the suggested policy keeps of it, adds to it and removes from it. */
function narrowedLines(file: string, narrowed: Narrowed): string[] {
  const name = printable(file);
  const lines = [
    `the suggested policy is ${name} with tools.allow narrowed to the tools called: its deny, approvals, scope, redaction, schemas and pins of the tools kept, its contracts, enforcement and limits are unchanged`,
    ...removedLines(name, narrowed),
  ];
  if (narrowed.added.length > 0) {
    lines.push(`added to tools.allow (called, but ${name} does not allow them):`);
    for (const tool of narrowed.added)
      lines.push(`  ${printable(tool)}${printable(addedNote(narrowed.policy, tool))}`);
  }
  return lines;
}
