import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { ItemRules, PatternEntry, Policy } from "../engine/model/policy.js";
import { compilePolicyWildcard } from "../engine/patterns/index.js";
import { compileResourcePattern, type ResourcePattern } from "../engine/patterns/resourcePattern.js";
import { covers } from "../engine/patterns/wildcardRelations.js";

/**
 * Lint of the opt-in `resources:` and `prompts:` sections: allow entries that a deny entry makes dead
 * (W_ALLOW_SHADOWED), resource allow prefixes that admit more than a directory (W_RESOURCE_PREFIX), and
 * prompt patterns with a literal star (as for tool names). Pure.
 */
export function lintItemSections(out: Diagnostic[], policy: Policy): void {
  if (policy.resources !== undefined) lintResources(out, policy.resources);
  if (policy.prompts !== undefined) lintPrompts(out, policy.prompts);
}

function lintResources(out: Diagnostic[], rules: ItemRules): void {
  const deny = rules.deny.map((entry) => ({ entry, p: compileResourcePattern(entry.pattern) }));
  for (const entry of rules.allow ?? []) {
    const p = compileResourcePattern(entry.pattern);
    const blocker = deny.find((d) => resourceCovers(d.p, p));
    if (blocker !== undefined) {
      shadowed(out, "resources", entry, blocker.entry);
      continue;
    }
    if (p.form === "prefix" && !p.literal.endsWith("/")) {
      out.push(
        diagnosticAt(
          "warning",
          "W_RESOURCE_PREFIX",
          entry.at,
          `'${entry.pattern}' is a plain string prefix: it also admits URIs such as '${p.literal}x…' (for 'file:///srv/app*', also 'file:///srv/application')`,
          `end the prefix with '/' ('${p.literal}/*') to admit only what is below it`,
        ),
      );
    }
  }
}

function lintPrompts(out: Diagnostic[], rules: ItemRules): void {
  const deny = rules.deny.map((entry) => ({ entry, w: compilePolicyWildcard(entry.pattern) }));
  for (const { entry, w } of deny) {
    if (w.hasLiteralStar) literalStar(out, "W_DENY_LITERAL_STAR", entry, "blocks");
  }
  for (const entry of rules.allow ?? []) {
    const w = compilePolicyWildcard(entry.pattern);
    if (w.hasLiteralStar) literalStar(out, "W_ALLOW_LITERAL_STAR", entry, "matches");
    const blocker = deny.find((d) => covers(d.w, w));
    if (blocker !== undefined) shadowed(out, "prompts", entry, blocker.entry);
  }
}

/** Is every URI (or template) `inner` matches also matched by `outer`? Conservative: false when unsure. */
function resourceCovers(outer: ResourcePattern, inner: ResourcePattern): boolean {
  if (outer.form === "all") return true;
  if (inner.form === "all") return false;
  if (outer.form === "prefix") return inner.literal.startsWith(outer.literal);
  if (inner.form === "prefix") return false;
  // exact or template inside exact or template: the inner one is a single string (a template is matched as
  // itself when listed), and the URIs a template expands to are covered when the templates are equal.
  return outer.matches(inner.literal) && (inner.form === "exact" || outer.literal === inner.literal);
}

function shadowed(out: Diagnostic[], section: string, entry: PatternEntry, blocker: PatternEntry): void {
  out.push(
    diagnosticAt(
      "warning",
      "W_ALLOW_SHADOWED",
      entry.at,
      `${section}.allow entry '${entry.pattern}' is dead: ${section}.deny '${blocker.pattern}' (line ${blocker.at.line}) blocks everything it admits`,
      "remove one of the two entries",
    ),
  );
}

function literalStar(
  out: Diagnostic[],
  code: "W_DENY_LITERAL_STAR" | "W_ALLOW_LITERAL_STAR",
  entry: PatternEntry,
  verb: string,
): void {
  out.push(
    diagnosticAt(
      "warning",
      code,
      entry.at,
      `'${entry.pattern}' is not one of the five wildcard forms: its inner '*' is a literal asterisk, so it ${verb} only a prompt literally named so`,
      "'*' expands only as the first or last character; name the prompts, or use 'x*', '*x' or '*x*'",
    ),
  );
}
