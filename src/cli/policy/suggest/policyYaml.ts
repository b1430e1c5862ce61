import { printable } from "../../../engine/text/printable.js";
import type { Suggestion, ToolUse } from "./tally.js";
import { plural, quoted, useText, type LogSource } from "./text.js";

/**
 * The suggested policy file: `tools.allow` and `enforcement.unconstrained_tools`, nothing else, with a
 * comment for every entry. Pure; the text loads as a v2 policy file without a diagnostic.
 *
 * Nothing here is invented: the log holds the arguments' digests, never the arguments, so no schema, scope
 * or argument value is suggested. The schemas are `toolgate policy init`'s job, from the server's catalog.
 */
export function suggestedPolicyYaml(suggestion: Suggestion, source: LogSource): string {
  const lines: string[] = [
    `# toolgate policy suggest: the tools called in ${printable(source.file)}${serverText(suggestion)}.`,
    `# From ${plural(source.events, "event")} (seq 1..${source.lastSeq}), chain verified; head ${source.head}.`,
    ...digestLines(suggestion.digests),
    "# tools.allow is exactly the tools called, by exact name. Each comment says how many calls, the first",
    "# and the last, and what the policy in force decided. Review it before you rely on it.",
    'version: "2.0"',
    "tools:",
  ];
  if (suggestion.allow.length === 0) {
    lines.push(
      "  # Nothing was called through the name rules of the policy in force, so nothing is allowed.",
    );
    lines.push("  allow: []");
  } else {
    lines.push("  allow:");
    for (const use of suggestion.allow) lines.push(`    - ${quoted(use.tool)} # ${useText(use)}`);
  }
  left(
    lines,
    suggestion.hidden,
    "Called, but hidden from the list by the policy in force: left out. Add one only if you mean it.",
  );
  left(
    lines,
    suggestion.inexact,
    "Called, but no tools.allow entry names it exactly (a * first or last makes a wildcard): left out.",
  );
  lines.push(
    "enforcement:",
    "  # The log holds the arguments' digests, not the arguments: no schema is suggested. Take one per tool",
    "  # from `toolgate policy init` (it reads the server's catalog), then set unconstrained_tools: deny.",
    "  unconstrained_tools: warn",
  );
  return lines.join("\n") + "\n";
}

export function serverText(suggestion: Suggestion): string {
  return suggestion.server === null ? "" : `, server ${quoted(suggestion.server)}`;
}

export function digestLines(digests: ReadonlyArray<string | null>): string[] {
  if (digests.length === 0) return [];
  if (digests.length === 1) {
    return [
      digests[0] === null
        ? "# Decided without a policy file (policy_digest null)."
        : `# Decided under the policy with digest ${digests[0]}.`,
    ];
  }
  const named = digests.map((d) => (d === null ? "null (no policy file)" : d));
  return [`# Decided under ${digests.length} policies, by digest:`, ...named.map((d) => `#   ${d}`)];
}

/** Tools reported in the file as comments, so that adding one is a deliberate edit. */
function left(lines: string[], uses: readonly ToolUse[], why: string): void {
  if (uses.length === 0) return;
  lines.push(`  # ${why}`);
  for (const use of uses) lines.push(`  #   - ${quoted(use.tool)} # ${useText(use)}`);
}
