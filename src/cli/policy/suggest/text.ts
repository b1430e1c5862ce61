import type { AuditRule } from "../../../audit/events.js";
import type { Rule } from "../../../engine/model/decision.js";
import { printable } from "../../../engine/text/printable.js";
import type { OutcomeCount, ToolUse } from "./tally.js";

/**
 * Wording shared by the suggested file and the report. Everything taken from the log (tool names, codes,
 * rules, times) is made printable: a newline in a tool name would otherwise end a YAML comment and put the
 * rest of the name into the policy as YAML, or forge a line of the report.
 */

/** Where the suggestion comes from: the log as `verifyChain` found it. */
export interface LogSource {
  /** As given on the command line. */
  file: string;
  events: number;
  lastSeq: number;
  /** Hex SHA-256 of the last line: what `toolgate audit verify` prints as `head`. */
  head: string;
}

/** A name as a YAML double-quoted scalar: JSON's escapes are YAML's, and the rest is escaped as `\uXXXX`. */
export function quoted(text: string): string {
  return printable(JSON.stringify(text));
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `tools.deny "delete_*"`, with the layer when it is not the policy file, and `at file:line` when known. */
export function ruleText(rule: AuditRule | Rule | null): string {
  if (rule === null) return "";
  const layer = rule.layer === "policy" ? "" : `${rule.layer}: `;
  const at = "at" in rule && rule.at !== undefined ? ` at ${rule.at.file}:${rule.at.line}` : "";
  return printable(`${layer}${rule.kind} ${JSON.stringify(rule.value)}${at}`);
}

/** `would-deny E_ARG_SCHEMA (schemas "create_entities")`. */
export function outcomeText(outcome: Pick<OutcomeCount, "decision" | "code" | "rule">): string {
  const hidden = outcome.decision === "hidden" || outcome.decision === "would-hide";
  const code = outcome.code === null ? "" : ` ${printable(outcome.code)}`;
  // A hidden call without a code is a name the server did not have (not in its catalog, or no server's).
  const why =
    outcome.rule !== null
      ? ` (${ruleText(outcome.rule)})`
      : hidden && outcome.code === null
        ? " (a name the server did not have)"
        : "";
  return `${outcome.decision}${code}${why}`;
}

/** `2 calls, FIRST to LAST: 1 allow, 1 would-deny E_ARG_SCHEMA (…)`. */
export function useText(use: ToolUse): string {
  const when =
    use.first === use.last ? printable(use.first) : `${printable(use.first)} to ${printable(use.last)}`;
  const single = use.outcomes.length === 1;
  const outcomes = use.outcomes.map((o) => (single ? "" : `${o.count} `) + outcomeText(o)).join(", ");
  return `${plural(use.calls, "call")}, ${when}: ${outcomes}`;
}
