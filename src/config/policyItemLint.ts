import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { ItemRules, PatternEntry, Policy } from "../engine/model/policy.js";
import { compilePolicyWildcard } from "../engine/patterns/index.js";
import { compileResourcePattern, type ResourcePattern } from "../engine/patterns/resourcePattern.js";
import { covers } from "../engine/patterns/wildcardRelations.js";

/**
 * Lint of the opt-in `resources:` and `prompts:` sections: allow entries that a deny entry makes dead
 * (W_ALLOW_SHADOWED), resource allow prefixes that admit more than a directory (W_RESOURCE_PREFIX),
 * resource entries no server URI can match (W_RESOURCE_UNMATCHABLE), empty patterns (W_PATTERN_EMPTY) and
 * prompt patterns with a literal star (as for tool names). Entries that match nothing a particular server
 * offers need its catalog: `info` and the dashboard name them (W_ITEM_UNMATCHED). Pure.
 */
export function lintItemSections(out: Diagnostic[], policy: Policy): void {
  for (const [section, rules] of [
    ["resources", policy.resources],
    ["prompts", policy.prompts],
  ] as const) {
    if (rules === undefined) continue;
    for (const [field, entry] of entriesOf(rules)) {
      if (entry.pattern === "") emptyPattern(out, section, field, entry);
      else if (section === "resources") unmatchable(out, field, entry);
    }
  }
  if (policy.resources !== undefined) lintResources(out, policy.resources);
  if (policy.prompts !== undefined) lintPrompts(out, policy.prompts);
}

function entriesOf(rules: ItemRules): ["allow" | "deny", PatternEntry][] {
  return [
    ...(rules.allow ?? []).map((e): ["allow", PatternEntry] => ["allow", e]),
    ...rules.deny.map((e): ["deny", PatternEntry] => ["deny", e]),
  ];
}

function emptyPattern(out: Diagnostic[], section: string, field: string, entry: PatternEntry): void {
  const what = section === "resources" ? "a resource with an empty URI" : "a prompt with an empty name";
  out.push(
    diagnosticAt(
      "warning",
      "W_PATTERN_EMPTY",
      entry.at,
      `${section}.${field} holds the empty pattern, which matches only ${what}, so it ${field === "deny" ? "blocks" : "admits"} nothing`,
      "remove it, or write the pattern you meant",
    ),
  );
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** A prefix entry may stop inside the scheme (`fil*`); an exact entry or template must hold one. */
const SCHEME_START = /^[A-Za-z][A-Za-z0-9+.-]*$/;

/** W_RESOURCE_UNMATCHABLE: no URI a server offers can match the entry. */
function unmatchable(out: Diagnostic[], field: string, entry: PatternEntry): void {
  const p = compileResourcePattern(entry.pattern);
  if (p.form === "all") return;
  let why: string | null = null;
  let hint = "";
  if (/^toolgate:\/\/[^/]+\//.test(p.literal)) {
    why = `names the resource as serve shows it to clients; rules match the server's own URIs, so it matches nothing`;
    hint = `write the server's own URI: '${p.literal.replace(/^toolgate:\/\/[^/]+\//, "")}${p.form === "prefix" ? "*" : ""}'`;
  } else if (!SCHEME.test(p.literal) && !(p.form === "prefix" && SCHEME_START.test(p.literal))) {
    why = `has no URI scheme, so it matches no resource URI (they all start with one, such as 'file:')`;
    hint = `write the URI with its scheme, such as 'file://${p.literal.startsWith("/") ? "" : "/"}${entry.pattern}'`;
  }
  if (why === null) return;
  out.push(
    diagnosticAt(
      "warning",
      "W_RESOURCE_UNMATCHABLE",
      entry.at,
      `resources.${field} entry '${entry.pattern}' ${why}`,
      hint,
    ),
  );
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
