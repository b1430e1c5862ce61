import type { PatternEntry, Policy } from "../../../engine/model/policy.js";
import type { SourceRef } from "../../../engine/model/source.js";
import { compilePolicyWildcard } from "../../../engine/patterns/index.js";
import type { PolicyJudgement } from "./judge.js";
import { byCodeUnits, type Suggestion } from "./tally.js";

/**
 * `policy suggest --policy CURRENT`: the policy in force, narrowed to the tools the log shows were called.
 * It never weakens what it keeps: the deny list, every approval, scope and redaction entry, contract, schema
 * and pin of a tool it keeps, the wildcard obligations, the shared `$defs`, the enforcement settings and the
 * limits stay exactly as CURRENT has them. Only `tools.allow` changes (the exact names called), and with it
 * what named the tools that are no longer allowed: their exact obligation entries, their schemas and their
 * pins. Everything removed is listed, with why. Pure.
 */

export interface Removal {
  /** `tools.allow`, `tools.approval_required`, `schemas`, `tool_pins` … */
  field: string;
  /** The entry as written: a pattern, a schema's tool, a pin's key. */
  entry: string;
  at?: SourceRef;
  why: string;
}

export interface Narrowed {
  policy: Policy;
  /** The new tools.allow, sorted. */
  allow: string[];
  /** Called, and not in CURRENT's allowlist (the dry run found them): allowed now, under what CURRENT says of them. */
  added: string[];
  /** Called, but CURRENT refuses them by name for another reason (a deny entry): left out. */
  refused: string[];
  /** CURRENT had no tools.allow: every tool it did not deny was allowed. */
  hadNoAllowlist: boolean;
  removed: Removal[];
}

export function narrowPolicy(current: Policy, suggestion: Suggestion, judgement: PolicyJudgement): Narrowed {
  const refusedBy = new Map(judgement.refused.map((r) => [r.tool, r.code]));
  const allow: string[] = [];
  const added: string[] = [];
  const refused: string[] = [];
  for (const use of suggestion.allow) {
    const code = refusedBy.get(use.tool);
    if (code === undefined) allow.push(use.tool);
    else if (code === "E_TOOL_NOT_ALLOWED") {
      allow.push(use.tool);
      added.push(use.tool);
    } else refused.push(use.tool);
  }
  allow.sort(byCodeUnits);
  const kept = new Set(allow);
  const removed: Removal[] = [];
  const gone = "its tool is no longer allowed";

  for (const entry of current.tools.allow ?? []) {
    const w = compilePolicyWildcard(entry.pattern);
    if (w.form === "exact" && kept.has(w.literal)) continue;
    const matched = allow.filter((tool) => w.matches(tool));
    removed.push({
      field: "tools.allow",
      entry: entry.pattern,
      at: entry.at,
      why:
        w.form === "exact"
          ? "never called"
          : matched.length === 0
            ? "a wildcard; no tool it matches was called"
            : `a wildcard; the tools it matches that were called are allowed by name (${matched.join(", ")})`,
    });
  }

  const exactList = (field: string, list: readonly PatternEntry[]): PatternEntry[] =>
    list.filter((entry) => {
      const w = compilePolicyWildcard(entry.pattern);
      if (w.form !== "exact" || kept.has(w.literal)) return true;
      removed.push({ field, entry: entry.pattern, at: entry.at, why: gone });
      return false;
    });
  const approvalRequired = exactList("tools.approval_required", current.tools.approvalRequired);
  const restrictScope = exactList("tools.restrict_scope", current.tools.restrictScope);
  const redactArgs = exactList("tools.redact_args", current.tools.redactArgs);

  const schemas: Policy["schemas"] = {};
  for (const tool of Object.keys(current.schemas)) {
    const entry = current.schemas[tool]!;
    if (kept.has(tool))
      Object.defineProperty(schemas, tool, { value: entry, enumerable: true, writable: true });
    else removed.push({ field: "schemas", entry: tool, at: entry.at, why: gone });
  }
  const toolPins = current.toolPins.filter((pin) => {
    if (kept.has(pin.toolName)) return true;
    removed.push({ field: "tool_pins", entry: pin.key, at: pin.at, why: gone });
    return false;
  });

  const at: SourceRef = { file: current.file, path: "tools.allow", line: 0, column: 0 };
  const policy: Policy = {
    ...current,
    tools: {
      ...current.tools,
      allow: allow.map((pattern) => ({ pattern, at })),
      approvalRequired,
      restrictScope,
      redactArgs,
    },
    schemas,
    toolPins,
  };
  return { policy, allow, added, refused, hadNoAllowlist: current.tools.allow === null, removed };
}

/** What CURRENT gives a tool it did not allow, now allowed: said so the reader knows what still holds it. */
export function addedNote(policy: Policy, tool: string): string {
  const notes: string[] = [];
  if (!Object.hasOwn(policy.schemas, tool)) {
    const mode = policy.enforcement.unconstrainedTools;
    notes.push(
      mode === "deny"
        ? "no schema, so unconstrained_tools: deny refuses its calls until you add one"
        : mode === "warn"
          ? "no schema: its calls go through with the warning E_TOOL_UNCONSTRAINED"
          : "no schema: unconstrained_tools: allow lets its calls through unchecked",
    );
  }
  if (policy.enforcement.unpinnedTools === "deny" && !policy.toolPins.some((p) => p.toolName === tool)) {
    notes.push("no pin, so unpinned_tools: deny withholds it until you pin it");
  }
  return notes.length === 0 ? "" : ` (${notes.join("; ")})`;
}
