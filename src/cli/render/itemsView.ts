import type { ToolGate } from "../../engine/model/gate.js";
import type { ItemRules, Policy } from "../../engine/model/policy.js";
import type { SourceRef } from "../../engine/model/source.js";
import {
  itemHiddenWhy,
  itemListViews,
  itemRulesText,
  itemSections,
  unmatchedItemEntries,
  unmatchedItemMessage,
  type ItemCatalog,
  type ItemListView,
  type ItemRow,
  type ItemSection,
  type UnmatchedItemEntry,
} from "../../engine/policy/itemViews.js";

/**
 * The part of `toolgate info` about the policy's opt-in `resources:` / `prompts:` sections: one header line
 * per section (what it allows and denies), then each list the server offers with every item's verdict, then
 * the entries that match nothing the server offers. Absent without a section: `info` then reads as before.
 */
export interface ItemsView {
  server: string;
  sections: { section: ItemSection; rules: ItemRules }[];
  lists: ItemListView[];
  unmatched: UnmatchedItemEntry[];
}

/** The view for one server, or `null` when the policy has neither section. */
export function buildItemsView(
  server: string,
  policy: Policy | null,
  gate: ToolGate,
  catalog: ItemCatalog,
): ItemsView | null {
  const sections = itemSections(policy);
  if (sections.length === 0) return null;
  return {
    server,
    sections,
    lists: itemListViews(gate, catalog),
    unmatched: unmatchedItemEntries(policy, server, catalog),
  };
}

const TITLE: Record<ItemListView["list"], string> = {
  resources: "resources",
  templates: "resource templates",
  prompts: "prompts",
};

/** The header lines, `label` padded as `info` pads its own. */
export function itemHeaderLines(view: ItemsView, header: (label: string, value: string) => string): string[] {
  return view.sections.map((s) => header(s.section, itemRulesText(s.section, s.rules)));
}

/** Width in code points, as info counts tool names. */
function width(s: string): number {
  return Array.from(s).length;
}

function row(r: ItemRow, nameWidth: number, gap: number): string {
  const d = r.decision;
  const pad = " ".repeat(nameWidth - width(r.name) + gap);
  if (d.decision === "deny") return `  ✗ ${r.name}${pad}${itemHiddenWhy(r)} (${d.code})`;
  return d.rule.at === undefined ? `  ✓ ${r.name}` : `  ✓ ${r.name}${pad}${d.rule.value} (${d.rule.kind})`;
}

/** The lists and the unmatched entries, each line without its newline. */
export function itemBodyLines(view: ItemsView, gap: number): string[] {
  const lines: string[] = [];
  for (const list of view.lists) {
    if (!list.offered) {
      // Resources and their templates come with one capability: one line says the server has neither.
      if (list.list === "templates") continue;
      const what = list.list === "prompts" ? "prompts" : "resources or resource templates";
      lines.push("", `${what} (none: the server does not offer ${list.list})`);
      continue;
    }
    lines.push("", `${TITLE[list.list]} (${list.allowed} allowed / ${list.rows.length} total)`);
    const nameWidth = list.rows.reduce((w, r) => Math.max(w, width(r.name)), 0);
    for (const r of list.rows) lines.push(row(r, nameWidth, gap));
  }
  for (const u of view.unmatched) lines.push(`⚠ ${unmatchedItemMessage(u, view.server)}`);
  return lines;
}

function where(at: SourceRef | undefined): Record<string, unknown> {
  return at === undefined ? {} : { file: at.file, line: at.line, column: at.column };
}

/** The fields `--format json` adds when the policy has a section (docs/cli.md). */
export function itemsJson(view: ItemsView): Record<string, unknown> {
  return {
    itemRules: view.sections.map((s) => ({
      section: s.section,
      allow: s.rules.allow === null ? null : s.rules.allow.map((e) => e.pattern),
      deny: s.rules.deny.map((e) => e.pattern),
      ...where(s.rules.at),
    })),
    items: view.lists.map((l) => ({
      list: l.list,
      offered: l.offered,
      allowed: l.allowed,
      total: l.rows.length,
      rows: l.rows.map((r) => ({
        name: r.name,
        visible: r.decision.decision === "allow",
        code: r.decision.code,
        rule: { kind: r.decision.rule.kind, value: r.decision.rule.value },
      })),
    })),
    unmatchedItemPatterns: view.unmatched.map((u) => ({
      section: u.section,
      field: u.field,
      pattern: u.pattern,
      message: unmatchedItemMessage(u, view.server),
      ...where(u.at),
    })),
  };
}
