import type { SourceRef } from "../../engine/model/source.js";
import {
  deadPatternMessage,
  deadPatterns,
  explainTool,
  layerWord,
  type DeadPattern,
  type ExtraLayer,
  type SeenTool,
  type ToolExplanation,
} from "../../engine/policy/explain.js";
import { layerPatternText, type Layer } from "../../engine/policy/layers.js";
import { printable } from "../../engine/text/printable.js";
import { itemBodyLines, itemHeaderLines, itemsJson, type ItemsView } from "./itemsView.js";

/**
 * The `.info mcp-server <name>` view (spec "Inspecting the effective filter"): the same lines, words, glyphs and
 * order as the spec's example. The spec says its alignment is reconstructed; toolgate's rule, which reproduces
 * the example exactly: header labels padded to 15 columns, tool names padded to the longest name plus 3 spaces.
 */

export const HEADER_WIDTH = 15;
export const NAME_GAP = 3;

export interface InfoViewInput {
  server: string;
  /** `stdio`, `http` or `sse`. */
  transport: string;
  /** Defaults to `connected`. */
  status?: string;
  /** e.g. `["tools"]`, `["tools", "resources", "prompts"]`. */
  capabilities: readonly string[];
  layers: readonly Layer[];
  /** Layers after the whitelists (the policy file). */
  extras?: readonly ExtraLayer[];
  /** The names of the server's tools (its full catalog). */
  catalog: readonly string[];
  /** The tools as the server listed them, by name: the pin stage judges definitions, not names. */
  seen?: ReadonlyMap<string, SeenTool>;
  /** The policy's resources:/prompts: sections over the server's other lists; absent without a section. */
  items?: ItemsView | null;
}

export interface InfoViewLayer {
  label: string;
  level: string;
  /** What follows `<label>: ` in the header. */
  summary: string;
  /** The whitelist layer, or null for an extra layer. */
  layer: Layer | null;
}

export interface InfoView {
  server: string;
  transport: string;
  status: string;
  capabilities: string[];
  layers: InfoViewLayer[];
  /** Sorted by tool name. */
  tools: ToolExplanation[];
  allowed: number;
  total: number;
  dead: DeadPattern[];
  items: ItemsView | null;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function buildInfoView(input: InfoViewInput): InfoView {
  const extras = input.extras ?? [];
  const tools = [...input.catalog]
    .sort(byName)
    .map((name) => explainTool(input.layers, name, extras, input.seen?.get(name)));
  return {
    server: input.server,
    transport: input.transport,
    status: input.status ?? "connected",
    capabilities: [...input.capabilities],
    layers: [
      ...input.layers.map((l) => ({
        label: l.label,
        level: layerWord(l),
        summary: layerPatternText(l),
        layer: l,
      })),
      ...extras.map((e) => ({ label: e.label, level: e.level, summary: e.summary, layer: null })),
    ],
    tools,
    allowed: tools.filter((t) => t.visible).length,
    total: tools.length,
    dead: deadPatterns(input.layers, input.catalog),
    items: input.items ?? null,
  };
}

function header(label: string, value: string): string {
  return label.padEnd(HEADER_WIDTH) + value;
}

/** Width in characters as a terminal counts them for names of tools (code points). */
function width(s: string): number {
  return Array.from(s).length;
}

function toolRow(t: ToolExplanation, nameWidth: number): string {
  const name = t.tool + " ".repeat(nameWidth - width(t.tool));
  if (!t.visible) return `  ✗ ${name}${" ".repeat(NAME_GAP)}hidden by ${t.hiddenBy!.level} layer`;
  const detail = t.steps
    .filter((s) => s.matched !== null)
    .map((s) => `${s.matched} (${s.level})`)
    .join(" ∧ ");
  return detail === "" ? `  ✓ ${t.tool}` : `  ✓ ${name}${" ".repeat(NAME_GAP)}${detail}`;
}

/** The view as text, each line ending in a newline. */
export function renderInfoView(view: InfoView): string {
  const lines: string[] = [];
  lines.push(header("server", `${view.server} (${view.transport}, ${view.status})`));
  lines.push(header("capabilities", view.capabilities.length === 0 ? "none" : view.capabilities.join(", ")));
  if (view.layers.length === 0) {
    lines.push(header("filter layers", "(none — all tools allowed)"));
  } else {
    view.layers.forEach((l, i) =>
      lines.push(header(i === 0 ? "filter layers" : "", `${l.label}: ${l.summary}`)),
    );
  }
  if (view.items !== null) lines.push(...itemHeaderLines(view.items, header));
  lines.push("");
  lines.push(`tools (${view.allowed} allowed / ${view.total} total)`);
  // A loop, not Math.max(...): a server may list more tools than a call can take arguments.
  const nameWidth = view.tools.reduce((w, t) => Math.max(w, width(t.tool)), 0);
  for (const t of view.tools) lines.push(toolRow(t, nameWidth));
  for (const d of view.dead) lines.push(`⚠ ${deadPatternMessage(d)}`);
  if (view.items !== null) lines.push(...itemBodyLines(view.items, NAME_GAP));
  // Names come from servers and files: a control character in one is shown escaped, never acted on.
  return lines.map((l) => `${printable(l)}\n`).join("");
}

interface WhereJson {
  file?: string;
  line?: number;
  column?: number;
}

function where(at: SourceRef | undefined): WhereJson {
  return at === undefined ? {} : { file: at.file, line: at.line, column: at.column };
}

/** The view for `--format json` (documented in the README). */
export function infoViewJson(view: InfoView): Record<string, unknown> {
  return {
    server: view.server,
    transport: view.transport,
    status: view.status,
    capabilities: view.capabilities,
    layers: view.layers.map((l) => ({
      label: l.label,
      level: l.level,
      kind: l.layer === null ? "extra" : l.layer.kind,
      summary: l.summary,
      ...(l.layer?.via === undefined ? {} : { via: l.layer.via }),
      ...where(l.layer?.at),
      patterns:
        l.layer === null
          ? null
          : l.layer.patterns.map((p) => ({
              pattern: p.source,
              valid: p.valid,
              ...(p.problem === undefined ? {} : { problem: p.problem }),
              ...where(p.at),
            })),
    })),
    tools: {
      allowed: view.allowed,
      total: view.total,
      rows: view.tools.map((t) => ({
        name: t.tool,
        visible: t.visible,
        matches: t.steps
          .filter((s) => s.allowed)
          .map((s) => ({ layer: s.label, level: s.level, pattern: s.matched })),
        hiddenBy: t.hiddenBy === null ? null : { layer: t.hiddenBy.label, level: t.hiddenBy.level },
      })),
    },
    deadPatterns: view.dead.map((d) => ({
      layer: d.layer.label,
      level: d.layer.level,
      pattern: d.pattern.source,
      message: deadPatternMessage(d),
      ...where(d.pattern.at),
    })),
    ...(view.items === null ? {} : itemsJson(view.items)),
  };
}
