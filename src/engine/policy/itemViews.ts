import { diagnosticAt, type Diagnostic } from "../model/diagnostics.js";
import type { ItemDecision, ItemKind } from "../model/decision.js";
import type { ToolGate } from "../model/gate.js";
import type { ItemRules, PatternEntry, Policy } from "../model/policy.js";
import type { SourceRef } from "../model/source.js";
import { compilePolicyWildcard } from "../patterns/index.js";
import { compileResourcePattern, templateRegex, type ResourcePattern } from "../patterns/resourcePattern.js";

/**
 * The views' side of the policy's opt-in `resources:` / `prompts:` sections (`info`, the dashboard's
 * matrix): what each section says, which of a server's resources, templates and prompts its gate hides, and
 * which entries match nothing the server offers. Nothing is decided here: every verdict is the gate's
 * `itemAccess`, the one serve and wrap ask. Pure.
 */

/** What a server offers besides tools; `null` for a kind it does not offer (no such capability). */
export interface ItemCatalog {
  /** Resource URIs, as listed. */
  resources: readonly string[] | null;
  /** Resource template strings (`uriTemplate`), as listed. */
  templates: readonly string[] | null;
  /** Prompt names, the server's own. */
  prompts: readonly string[] | null;
}

export type ItemList = "resources" | "templates" | "prompts";

export const ITEM_LISTS: readonly ItemList[] = ["resources", "templates", "prompts"];

const KIND_OF: Record<ItemList, ItemKind> = {
  resources: "resource",
  templates: "resource",
  prompts: "prompt",
};

export interface ItemRow {
  name: string;
  decision: ItemDecision;
}

export interface ItemListView {
  list: ItemList;
  /** `false` when the server does not offer this kind: nothing here to hide. */
  offered: boolean;
  /** Sorted by name. */
  rows: ItemRow[];
  allowed: number;
}

export type ItemSection = "resources" | "prompts";

/** The sections a policy has, in file order of the spec (resources, then prompts). */
export function itemSections(
  policy: Policy | null | undefined,
): { section: ItemSection; rules: ItemRules }[] {
  if (policy === null || policy === undefined) return [];
  const out: { section: ItemSection; rules: ItemRules }[] = [];
  if (policy.resources !== undefined) out.push({ section: "resources", rules: policy.resources });
  if (policy.prompts !== undefined) out.push({ section: "prompts", rules: policy.prompts });
  return out;
}

/** A section in one line: `allow: a | b · deny: c`, as layerPatternText shows a whitelist layer. */
export function itemRulesText(section: ItemSection, rules: ItemRules): string {
  const kind = section === "resources" ? "resource" : "prompt";
  const list = (entries: readonly PatternEntry[]): string =>
    entries.length === 0 ? "(none)" : entries.map((e) => e.pattern).join(" | ");
  const allow =
    rules.allow === null
      ? `(no allowlist: every ${kind} not denied)`
      : rules.allow.length === 0
        ? `(empty: no ${kind} allowed)`
        : list(rules.allow);
  return `allow: ${allow} · deny: ${list(rules.deny)}`;
}

/**
 * Each offered item's verdict, for the lists the policy has a section for (a list of a kind without a
 * section is left out: it passes unfiltered). Prompts are also judged by their name through the gateway, as
 * the gate does when it knows the server's name.
 */
export function itemListViews(gate: ToolGate, catalog: ItemCatalog): ItemListView[] {
  const views: ItemListView[] = [];
  for (const list of ITEM_LISTS) {
    const kind = KIND_OF[list];
    if (gate.itemAccess === undefined || gate.itemAccess(kind, "") === null) continue;
    const names = catalog[list];
    const rows = [...new Set(names ?? [])].sort(byName).map((name) => ({
      name,
      decision: gate.itemAccess!(kind, name)!,
    }));
    views.push({
      list,
      offered: names !== null,
      rows,
      allowed: rows.filter((r) => r.decision.decision === "allow").length,
    });
  }
  return views;
}

/** Why a hidden item is hidden, in a few words (`info` and the dashboard say it the same way). */
export function itemHiddenWhy(r: ItemRow): string {
  const rule = r.decision.rule;
  return rule.kind.endsWith(".deny")
    ? `hidden by ${rule.kind} '${rule.value}'`
    : `hidden: matches no ${rule.kind} entry`;
}

export interface UnmatchedItemEntry {
  section: ItemSection;
  /** The entry's list and pattern; `null` for the whole section when the server offers no such kind. */
  field: "allow" | "deny" | null;
  pattern: string | null;
  /** The entry, or the section's key. */
  at: SourceRef;
}

/**
 * The entries of the policy's sections that match nothing `server` offers: no listed prompt (under its own
 * name or `<server>__<name>`), no listed resource or template, and no URI a listed template can expand to.
 * Conservative: an entry that may match an expansion counts as matched. A section whose kind the server
 * does not offer at all is named once, as a whole.
 */
export function unmatchedItemEntries(
  policy: Policy | null | undefined,
  server: string,
  catalog: ItemCatalog,
): UnmatchedItemEntry[] {
  const out: UnmatchedItemEntry[] = [];
  for (const { section, rules } of itemSections(policy)) {
    const offered =
      section === "prompts"
        ? catalog.prompts !== null
        : catalog.resources !== null || catalog.templates !== null;
    if (!offered) {
      out.push({ section, field: null, pattern: null, at: rules.at });
      continue;
    }
    const matches =
      section === "prompts"
        ? promptMatcher(server, catalog.prompts ?? [])
        : resourceMatcher(catalog.resources ?? [], catalog.templates ?? []);
    for (const [field, entries] of [
      ["allow", rules.allow ?? []],
      ["deny", rules.deny],
    ] as const) {
      for (const entry of entries) {
        if (!matches(entry.pattern)) out.push({ section, field, pattern: entry.pattern, at: entry.at });
      }
    }
  }
  return out;
}

export function unmatchedItemMessage(u: UnmatchedItemEntry, server: string): string {
  const what = u.section === "prompts" ? "prompts" : "resources or resource templates";
  if (u.field === null) {
    return `the ${u.section}: section has nothing to filter on '${server}': the server offers no ${what}`;
  }
  const lists =
    u.section === "prompts"
      ? "none of its prompts"
      : "none of its resources, templates, or the URIs its templates expand to";
  return `${u.section}.${u.field} entry '${u.pattern}' matches nothing '${server}' offers (${lists})`;
}

/** W_ITEM_UNMATCHED, one per entry (or section), with its file and line. */
export function unmatchedItemDiagnostics(
  server: string,
  unmatched: readonly UnmatchedItemEntry[],
): Diagnostic[] {
  return unmatched.map((u) =>
    diagnosticAt(
      "warning",
      "W_ITEM_UNMATCHED",
      u.at,
      unmatchedItemMessage(u, server),
      u.field === null
        ? "nothing to do if the section is meant for other servers of the policy"
        : "correct the pattern (toolgate info lists what the server offers), or remove it",
    ),
  );
}

function promptMatcher(server: string, prompts: readonly string[]): (pattern: string) => boolean {
  return (pattern) => {
    const w = compilePolicyWildcard(pattern);
    return prompts.some((p) => w.matches(p) || w.matches(`${server}__${p}`));
  };
}

function resourceMatcher(
  uris: readonly string[],
  templates: readonly string[],
): (pattern: string) => boolean {
  const expansions = templates.map((t) => ({ template: t, regex: templateRegex(t) }));
  return (pattern) => {
    const p = compileResourcePattern(pattern);
    if (uris.some((u) => p.matches(u)) || templates.some((t) => p.matches(t))) return true;
    return expansions.some(({ template, regex }) => regex !== null && mayExpandInto(p, template, regex));
  };
}

/** Can a URI the template expands to be matched by `p`? True when unsure. */
function mayExpandInto(p: ResourcePattern, template: string, regex: RegExp): boolean {
  if (p.form === "all") return true;
  if (p.form === "exact") return regex.test(p.literal);
  // A prefix or another template: compare the literal text before the first expression of each.
  const fixed = template.slice(0, template.indexOf("{"));
  const other = p.form === "template" ? p.literal.slice(0, p.literal.indexOf("{")) : p.literal;
  return fixed.startsWith(other) || other.startsWith(fixed);
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
