import type { Rule } from "../../engine/model/decision.js";
import type { DiffExample, PolicyDiff, ToolChange } from "../../engine/policy/diffModel.js";
import { printable } from "../../engine/text/printable.js";

/** The two files compared, for the header of either format. */
export interface DiffFiles {
  old: string;
  new: string;
  oldDigest: string;
  newDigest: string;
}

const MARK = { "newly-allowed": "+", "newly-denied": "-", changed: "~" } as const;
const LONGEST_VALUE = 60;

/**
 * The diff as a reviewer reads it: one block per changed tool, one line per change, marked `+` (newly
 * allowed), `-` (newly denied) or `~` (changed, neither alone), each with the rule that decides it and,
 * for argument changes, an example call. Names and values come from files and servers: shown escaped.
 */
export function renderPolicyDiff(diff: PolicyDiff, files: DiffFiles): string {
  const lines: string[] = [`policy diff ${files.old} → ${files.new}`, ""];
  for (const change of diff.policy) {
    lines.push(`${MARK[change.effect]} ${change.kind}: ${show(change.old)} → ${show(change.new)}`);
  }
  if (diff.policy.length > 0) lines.push("");
  for (const tool of diff.tools) {
    lines.push(`${tool.server} ${tool.tool}`);
    for (const change of tool.changes) lines.push(...changeLines(change));
    lines.push("");
  }
  const allowed = diff.tools.filter((t) => t.changes.some((c) => c.effect === "newly-allowed")).length;
  const denied = diff.tools.filter((t) => t.changes.some((c) => c.effect === "newly-denied")).length;
  lines.push(
    `${diff.tools.length} of ${diff.total} tools change (${allowed} with something newly allowed, ${denied} with something newly denied), ${diff.unchanged} unchanged` +
      (diff.policy.length === 0
        ? ""
        : `; ${diff.policy.length} policy-wide setting${diff.policy.length === 1 ? "" : "s"} changed`),
  );
  return lines.map((l) => `${printable(l)}\n`).join("");
}

function changeLines(change: ToolChange): string[] {
  const mark = `  ${MARK[change.effect]} `;
  switch (change.kind) {
    case "visibility": {
      const after = change.new as { visible: boolean; code: string | null; rule: Rule | null };
      const before = change.old as { visible: boolean; code: string | null; rule: Rule | null };
      if (after.visible)
        return [`${mark}shown (was hidden: ${before.code} ${rule(before.rule)}); now ${rule(after.rule)}`];
      return [
        `${mark}hidden: ${after.code} ${rule(after.rule)}${before.visible ? "" : ` (was hidden: ${before.code})`}`,
      ];
    }
    case "approval": {
      const side = (change.new ?? change.old) as { pattern: string; file: string; line: number };
      const what =
        change.new === null ? "no longer needs a person's approval" : "now needs a person's approval";
      return [`${mark}${what} (tools.approval_required '${side.pattern}' ${side.file}:${side.line})`];
    }
    case "schema":
      return [`${mark}schema ${sideWord(change.old, change.new)}`, ...exampleLines(change)];
    case "scope":
      return [`${mark}scope ${scopeWords(change.old)} → ${scopeWords(change.new)}`, ...exampleLines(change)];
    case "calls":
      return [`${mark}calls decided differently`, ...exampleLines(change)];
    case "redaction":
      return [`${mark}redaction ${show(change.old)} → ${show(change.new)}`];
    case "pins": {
      const keys = (v: unknown) => (v as { key: string }[]).map((p) => p.key).join(", ") || "none";
      return [`${mark}pins ${keys(change.old)} → ${keys(change.new)} (hashes or pins changed)`];
    }
  }
}

function sideWord(old: unknown, next: unknown): string {
  const has = (v: unknown) => (v as { schema: unknown }).schema !== null;
  const where = (v: unknown) => {
    const s = v as { file?: string; line?: number; unconstrained_tools?: string };
    return has(v) ? `${s.file}:${s.line}` : `none (unconstrained_tools: ${s.unconstrained_tools})`;
  };
  if (has(old) && has(next)) return `changed (${where(old)} → ${where(next)})`;
  return `${where(old)} → ${where(next)}`;
}

function scopeWords(side: unknown): string {
  if (side === null) return "none";
  const s = side as { pattern: string; contract: Record<string, unknown> | null };
  const c = s.contract;
  return c === null
    ? `'${s.pattern}' (no contract)`
    : `${String(c.scope_type)} ${show(c.scope_value)} (${String(c.scope_match_mode)}, tools.restrict_scope '${s.pattern}')`;
}

function exampleLines(change: ToolChange): string[] {
  const examples = change.examples ?? [];
  if (examples.length === 0) {
    return [
      `      no example argument found among ${change.tried ?? 0} tried; compare the two by reading them`,
    ];
  }
  return examples.map((e) => `      e.g. ${args(e)} ${exampleWords(e)}`);
}

function exampleWords(e: DiffExample): string {
  const verdict = e.effect === "newly-denied" ? "allowed before, now refused" : "refused before, now allowed";
  return `${verdict}: ${e.code} ${rule(e.rule)} — ${e.reason}`;
}

function args(e: DiffExample): string {
  const parts = Object.entries(e.arguments).map(([k, v]) => `${k}: ${show(v)}`);
  return `{${parts.join(", ")}}`;
}

function rule(r: Rule | null): string {
  if (r === null) return "";
  const at = r.at === undefined || r.at.line === 0 ? "" : ` ${r.at.file}:${r.at.line}`;
  return `[${r.kind} '${r.value}'${at}]`;
}

/** A value as JSON, long ones shortened (the JSON output keeps them whole). */
function show(v: unknown): string {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length <= LONGEST_VALUE ? text : `${text.slice(0, LONGEST_VALUE)}…(${text.length} chars)`;
}

/** `--format json`: keys documented in docs/changing-policies.md, "Policy diff". */
export function policyDiffJson(diff: PolicyDiff, files: DiffFiles): Record<string, unknown> {
  const count = (effect: string) =>
    diff.tools.filter((t) => t.changes.some((c) => c.effect === effect)).length;
  return {
    old: { file: files.old, digest: files.oldDigest },
    new: { file: files.new, digest: files.newDigest },
    summary: {
      tools: diff.total,
      changed: diff.tools.length,
      unchanged: diff.unchanged,
      newly_allowed: count("newly-allowed"),
      newly_denied: count("newly-denied"),
    },
    policy: diff.policy,
    tools: diff.tools,
  };
}
