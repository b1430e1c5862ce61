import { relative, isAbsolute } from "node:path";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import type { SourceRef } from "../engine/model/source.js";
import { decideName } from "../engine/policy/decide.js";
import { enabledServers } from "../engine/policy/enabledServers.js";
import {
  deadPatternMessage,
  deadPatterns,
  explainTool,
  type ExplainStep,
  type ToolExplanation,
} from "../engine/policy/explain.js";
import {
  itemListViews,
  itemSections,
  unmatchedItemEntries,
  unmatchedItemMessage,
  type ItemListView,
} from "../engine/policy/itemViews.js";
import { layerPatternText, type Layer } from "../engine/policy/layers.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { serverFilter, type ServerFilter } from "../engine/policy/serverFilter.js";
import type { CatalogCache, CatalogResult } from "./catalogCache.js";

/**
 * The verdict matrix: for each server of the context, every tool's verdict in every layer, as `toolgate
 * info` decides it. Nothing is decided here: the layers and the policy come from serverFilter, each tool's
 * steps from explainTool, dead patterns from deadPatterns (the functions `info` uses); this module only sorts
 * the steps into the dashboard's columns and words the hover text.
 */

/** The matrix's columns, in the order the layers apply (docs/whitelists.md, the rules). */
export const COLUMNS = [
  "global",
  "config",
  "role",
  "agent",
  "session",
  "skills",
  "node",
  "policy",
  "pins",
] as const;
export type Column = (typeof COLUMNS)[number];

export function columnOf(step: ExplainStep): Column {
  if (step.layer === null) return step.level === "pins" ? "pins" : "policy";
  return step.layer.level === "skill" ? "skills" : step.layer.level;
}

export interface PatternNote {
  message: string;
  /** `file:line:col` relative to the directory when inside it; the layer's label for patterns set in memory. */
  where: string;
}

export interface ServerMatrix {
  server: string;
  transport: string;
  filter: ServerFilter;
  catalog: CatalogResult;
  /** Sorted by name (as `info` sorts). Empty when the catalog could not be fetched. */
  tools: ToolExplanation[];
  allowed: number;
  /** Which columns have at least one layer for this server. */
  active: ReadonlySet<Column>;
  dead: PatternNote[];
  invalid: PatternNote[];
  /**
   * The policy's resources:/prompts: sections over the server's other lists (itemListViews, as `info`
   * shows them); empty without a section. `null` when the lists could not be fetched.
   */
  items: ItemListView[] | null;
}

export interface DisabledServer {
  server: string;
  transport: string;
}

export interface Matrix {
  servers: ServerMatrix[];
  disabled: DisabledServer[];
  /** The level that decided which servers are enabled, e.g. `config (config.yaml)`. */
  decidedBy: string;
}

export function whereOf(at: SourceRef | undefined, dir: string, fallback: string): string {
  if (at === undefined) return fallback;
  const rel = relative(dir, at.file);
  const file = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : at.file;
  return at.line > 0 ? `${file}:${at.line}:${at.column}` : file;
}

function byName(a: ToolExplanation, b: ToolExplanation): number {
  return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}

function invalidPatterns(layers: readonly Layer[], dir: string): PatternNote[] {
  return layers.flatMap((layer) =>
    layer.patterns
      .filter((p) => !p.valid)
      .map((p) => ({
        message: `${layer.label} pattern '${p.source}' is invalid: ${p.problem ?? "it matches nothing"}`,
        where: whereOf(p.at ?? layer.at, dir, layer.label),
      })),
  );
}

async function serverMatrix(
  config: ConfigDir,
  selection: ContextSelection,
  policy: ActivePolicy | null,
  name: string,
  catalogs: CatalogCache,
): Promise<ServerMatrix> {
  const entry = config.mcp.servers.find((s) => s.name === name)!;
  const filter = serverFilter(config, selection, name, policy);
  const catalog = await catalogs.get(entry, config.dir);
  const names = catalog.ok ? catalog.catalog.names : [];
  const seen = catalog.ok ? catalog.catalog.seen : undefined;
  const tools = names
    .map((tool) => explainTool(filter.layers, tool, filter.extras, seen?.get(tool)))
    .sort(byName);
  const items = itemParts(policy, name, filter, catalog, config.dir);
  const active = new Set<Column>([
    ...filter.layers.map((l) => (l.level === "skill" ? "skills" : l.level)),
    ...filter.extras.map((e) => (e.level === "pins" ? "pins" : "policy") as Column),
  ]);
  return {
    server: name,
    transport: entry.transport,
    filter,
    catalog,
    tools,
    allowed: tools.filter((t) => t.visible).length,
    active,
    // Only against a catalog: without one, every pattern would look dead.
    // An invalid pattern is dead too (it matches nothing); it is listed once, as invalid.
    dead: [
      ...(catalog.ok
        ? deadPatterns(filter.layers, names)
            .filter((d) => d.pattern.valid)
            .map((d) => ({
              message: deadPatternMessage(d),
              where: whereOf(d.pattern.at ?? d.layer.at, config.dir, d.layer.label),
            }))
        : []),
      ...items.unmatched,
    ],
    invalid: invalidPatterns(filter.layers, config.dir),
    items: items.lists,
  };
}

/** The item lists and the entries that match nothing the server offers (W_ITEM_UNMATCHED), as `info`. */
function itemParts(
  policy: ActivePolicy | null,
  name: string,
  filter: ServerFilter,
  catalog: CatalogResult,
  dir: string,
): { lists: ItemListView[] | null; unmatched: PatternNote[] } {
  const rules = policy?.compiled.policy ?? null;
  if (itemSections(rules).length === 0 || !catalog.ok) return { lists: [], unmatched: [] };
  const items = catalog.catalog.items;
  if (items === null || items === undefined) return { lists: null, unmatched: [] };
  return {
    lists: itemListViews(filter.gate, items),
    unmatched: unmatchedItemEntries(rules, name, items).map((u) => ({
      message: unmatchedItemMessage(u, name),
      where: whereOf(u.at, dir, "policy"),
    })),
  };
}

/** The matrix of a loaded context: enabled servers' catalogs are fetched in parallel (through the cache). */
export async function buildMatrix(
  config: ConfigDir,
  selection: ContextSelection,
  policy: ActivePolicy | null,
  catalogs: CatalogCache,
): Promise<Matrix> {
  const enabled = enabledServers(config, selection);
  const on = new Set(enabled.servers);
  const servers = await Promise.all(
    enabled.servers.map((name) => serverMatrix(config, selection, policy, name, catalogs)),
  );
  return {
    servers,
    disabled: config.mcp.servers
      .filter((s) => !on.has(s.name))
      .map((s) => ({ server: s.name, transport: s.transport })),
    decidedBy: enabled.decidedBy,
  };
}

export interface Cell {
  state: "allow" | "hide" | "none";
  /** The first layer in the whole row that hid the tool is this cell. */
  first: boolean;
  /** The hover text: the matching pattern of each layer, or why it hid the tool. */
  title: string;
}

/** Why a policy or pins step hid a tool, in the engine's words (decideName, the pin stage). */
function extraReason(
  step: ExplainStep,
  tool: string,
  server: ServerMatrix,
  policy: ActivePolicy | null,
): string {
  if (policy === null) return `hidden by ${step.label}`;
  if (step.level === "pins") {
    const seen = server.catalog.ok ? server.catalog.catalog.seen.get(tool) : undefined;
    // The filter's own pin layer: it knows every server of the configuration, as the gate does.
    const pins = server.filter.extras.find((e) => e.level === "pins");
    const why = pins?.reason?.(tool, seen) ?? null;
    return why === null ? `hidden by ${step.label}` : why;
  }
  const outcome = decideName(policy.compiled, tool);
  return `${outcome.code ?? "hidden"}: ${outcome.reason} (${step.label})`;
}

/** The row's cells, one per column (for the page rows only: wording hover text for 10,000 tools is waste). */
export function rowCells(
  row: ToolExplanation,
  server: ServerMatrix,
  policy: ActivePolicy | null,
): Record<Column, Cell> {
  const cells = {} as Record<Column, Cell>;
  for (const column of COLUMNS) {
    const steps = row.steps.filter((s) => columnOf(s) === column);
    if (steps.length === 0) {
      cells[column] = { state: "none", first: false, title: `no ${column} layer for '${server.server}'` };
      continue;
    }
    const hiding = steps.filter((s) => !s.allowed);
    const title = steps
      .map((s) => {
        if (s.allowed) return s.matched === null ? `allowed by ${s.label}` : `${s.matched} (${s.label})`;
        if (s.layer !== null)
          return `hidden by ${s.label}: no pattern of ${layerPatternText(s.layer)} matches`;
        return extraReason(s, row.tool, server, policy);
      })
      .join("; ");
    cells[column] = {
      state: hiding.length === 0 ? "allow" : "hide",
      first: row.hiddenBy !== null && steps.includes(row.hiddenBy),
      title,
    };
  }
  return cells;
}
