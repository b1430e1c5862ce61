import { isMap, isScalar, isSeq, Scalar, type Document } from "yaml";
import { loadPolicyText } from "../../../config/policyLoader.js";
import { decidesAlike, policyDocument } from "../../../config/policyMigrate.js";
import { ToolgateError } from "../../../engine/errors.js";
import { formatDiagnostic } from "../../../engine/model/diagnostics.js";
import { printable } from "../../../engine/text/printable.js";
import { addedNote, type Narrowed, type Removal } from "./narrow.js";
import { digestLines, serverText } from "./policyYaml.js";
import type { Suggestion } from "./tally.js";
import { plural, useText, type LogSource } from "./text.js";

/**
 * The file `policy suggest --policy CURRENT` writes: CURRENT narrowed (narrow.ts), in its v2 form, with a
 * comment per tools.allow entry (how it was called) and a header that says what was kept, what was added
 * and every entry removed. It is loaded back and compared with the narrowed policy before it is returned:
 * the text must decide every call as the narrowed policy does (E_POLICY_MIGRATE otherwise, nothing written).
 */
export function narrowedPolicyYaml(
  suggestion: Suggestion,
  source: LogSource,
  currentFile: string,
  narrowed: Narrowed,
): string {
  const doc = policyDocument(narrowed.policy);
  const current = printable(currentFile);
  doc.commentBefore = [
    ` toolgate policy suggest: ${current}, narrowed to the tools called in ${printable(source.file)}${serverText(suggestion)}.`,
    ` From ${plural(source.events, "event")} (seq 1..${source.lastSeq}), chain verified; head ${source.head}.`,
    ...digestLines(suggestion.digests).map((line) => line.slice(1)),
    ` tools.allow is exactly the tools called, by exact name. Everything else is ${current}'s, unchanged: deny,`,
    " approvals, scope, redaction, schemas and pins of the tools kept, the contracts, enforcement and limits.",
    ...removedLines(current, narrowed, MAX_REMOVALS_IN_FILE).map((line) => ` ${line}`),
    " Review it before you rely on it.",
  ].join("\n");

  const uses = new Map(suggestion.allow.map((u) => [u.tool, u]));
  const allow = doc.getIn(["tools", "allow"], true);
  if (isSeq(allow)) {
    allow.flow = false;
    for (const item of allow.items) {
      if (!isScalar(item) || typeof item.value !== "string") continue;
      item.type = Scalar.QUOTE_DOUBLE;
      const use = uses.get(item.value);
      const added = narrowed.added.includes(item.value)
        ? `; not allowed by ${current}: added${addedNote(narrowed.policy, item.value)}`
        : "";
      if (use !== undefined) item.comment = ` ${useText(use)}${printable(added)}`;
    }
    if (allow.items.length === 0) {
      keyComment(
        doc,
        ["tools", "allow"],
        " Nothing was called that the policy allows, so nothing is allowed.",
      );
    }
  }
  const text = doc.toString({ lineWidth: 100, flowCollectionPadding: false });

  const reloaded = loadPolicyText(currentFile, text);
  if (reloaded.policy === null || !decidesAlike(narrowed.policy, reloaded.policy)) {
    const first = reloaded.diagnostics.find((d) => d.severity === "error");
    throw new ToolgateError(
      "E_POLICY_MIGRATE",
      `the narrowed policy for ${currentFile} would not decide as intended${first ? `: ${formatDiagnostic(first)}` : ""}; nothing written`,
    );
  }
  return text;
}

/**
 * Removals listed in the written file's header; the report lists each. A policy of 250,000 entries would
 * otherwise write a header larger than any policy file toolgate reads (E_FILE_TOO_LARGE on the reload).
 */
const MAX_REMOVALS_IN_FILE = 1000;

/**
 * What was removed from CURRENT (and what was left out), one line each, the removals at most `limit`;
 * shared with the report.
 */
export function removedLines(current: string, narrowed: Narrowed, limit = Infinity): string[] {
  const lines: string[] = [];
  if (narrowed.hadNoAllowlist) {
    lines.push(
      `${current} has no tools.allow (every tool it does not deny is allowed); now only the ${plural(narrowed.allow.length, "tool")} called are`,
    );
  }
  if (narrowed.removed.length === 0) {
    if (!narrowed.hadNoAllowlist) lines.push(`nothing of ${current} is removed`);
  } else {
    lines.push(`removed from ${current} (tools not called in the log):`);
    for (const r of narrowed.removed.slice(0, limit)) lines.push(`  ${removalText(r)}`);
    const more = narrowed.removed.length - limit;
    if (more > 0) lines.push(`  … and ${more} more (the report on stderr lists each)`);
  }
  if (narrowed.refused.length > 0) {
    lines.push(
      `called, but ${current} refuses them by name, so left out: ${narrowed.refused.map(printable).join(", ")}`,
    );
  }
  return lines;
}

function removalText(r: Removal): string {
  const at = r.at === undefined || r.at.line === 0 ? "" : ` (line ${r.at.line})`;
  return printable(`${r.field} ${JSON.stringify(r.entry)}${at}: ${r.why}`);
}

function keyComment(doc: Document, path: [string, string], comment: string): void {
  const parent = doc.getIn([path[0]], true);
  if (!isMap(parent)) return;
  const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path[1]);
  if (pair !== undefined && isScalar(pair.key)) pair.key.commentBefore = comment;
}
