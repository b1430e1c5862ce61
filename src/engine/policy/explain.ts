import type { Diagnostic } from "../model/diagnostics.js";
import type { ToolContext, ToolDefinition } from "../model/gate.js";
import type { Layer, LayerPattern } from "./layers.js";
import { layerMatch } from "./layers.js";

/**
 * Per-tool explanations and dead patterns over a list of whitelist layers, for the info view, the console and
 * the warnings logged when a catalog is fetched. Pure.
 */

/**
 * A layer that is not a whitelist (the policy file): the seam through which the policy joins the view as one
 * more layer after the whitelist layers (docs/design.md, our choices).
 */
export interface ExtraLayer {
  /** e.g. `policy (policy.yaml)`. */
  label: string;
  /** The word ✗ rows and ⚠ lines use, e.g. `policy`. */
  level: string;
  /** What the filter-layers header prints after `<label>: `. */
  summary: string;
  /**
   * `matched`: the rule or pattern shown in ✓ rows; `null` to show nothing for this layer. `seen`: the tool's
   * definition as the server listed it, when the view has it (the pin stage judges definitions).
   */
  judge(tool: string, seen?: SeenTool): { allowed: boolean; matched: string | null };
  /** Why the layer withholds `tool`, in the engine's words, when it says more than its label; else null. */
  reason?(tool: string, seen?: SeenTool): string | null;
}

/** A tool as the server listed it, and what the pin stage needs besides (its server, its schema's raw text). */
export interface SeenTool {
  definition: ToolDefinition;
  context?: ToolContext;
}

export interface ExplainStep {
  label: string;
  level: string;
  allowed: boolean;
  /** The first matching pattern (whitelist layer) or the extra layer's `matched`. */
  matched: string | null;
  /** The whitelist layer, or null for an extra layer. */
  layer: Layer | null;
  pattern: LayerPattern | null;
}

export interface ToolExplanation {
  tool: string;
  visible: boolean;
  /** One step per layer, in layer order (all of them, also after the one that hid the tool). */
  steps: ExplainStep[];
  /** The first layer that hid the tool. */
  hiddenBy: ExplainStep | null;
}

export function explainTool(
  layers: readonly Layer[],
  tool: string,
  extras: readonly ExtraLayer[] = [],
  seen?: SeenTool,
): ToolExplanation {
  const steps: ExplainStep[] = layers.map((layer) => {
    const pattern = layerMatch(layer, tool);
    return {
      label: layer.label,
      level: layerWord(layer),
      allowed: pattern !== null,
      matched: pattern?.source ?? null,
      layer,
      pattern,
    };
  });
  for (const extra of extras) {
    const verdict = extra.judge(tool, seen);
    steps.push({
      label: extra.label,
      level: extra.level,
      allowed: verdict.allowed,
      matched: verdict.matched,
      layer: null,
      pattern: null,
    });
  }
  const hiddenBy = steps.find((s) => !s.allowed) ?? null;
  return { tool, visible: hiddenBy === null, steps, hiddenBy };
}

export interface DeadPattern {
  layer: Layer;
  pattern: LayerPattern;
}

/**
 * Patterns matching none of the tools the layers before them allow (for the first layer: none of the catalog),
 * docs/design.md, our choices. Invalid patterns match nothing, so they are dead too. In layer order, then pattern order.
 */
export function deadPatterns(layers: readonly Layer[], catalog: readonly string[]): DeadPattern[] {
  const out: DeadPattern[] = [];
  let allowed = [...catalog];
  for (const layer of layers) {
    for (const pattern of layer.patterns) {
      if (!allowed.some((tool) => pattern.matcher.matches(tool))) out.push({ layer, pattern });
    }
    allowed = allowed.filter((tool) => layerMatch(layer, tool) !== null);
  }
  return out;
}

/** `role pattern 'bogus_*' matches no allowed tools` (the ⚠ line of the info view, without the glyph). */
export function deadPatternMessage(dead: DeadPattern): string {
  return `${layerWord(dead.layer)} pattern '${dead.pattern.source}' matches no allowed tools`;
}

/**
 * Dead patterns as warnings naming file and line, for logging when a server's catalog is fetched (spec).
 * Patterns written by `.set` have no file; they are named by their layer only.
 */
export function deadPatternDiagnostics(server: string, dead: readonly DeadPattern[]): Diagnostic[] {
  return dead.map((d) => {
    const at = d.pattern.at ?? d.layer.at;
    return {
      severity: "warning",
      code: "W_DEAD_PATTERN",
      message: `${deadPatternMessage(d)} on '${server}' (${d.layer.label})`,
      file: at?.file ?? d.layer.label,
      line: at?.line ?? 0,
      column: at?.column ?? 0,
      path: at?.path ?? "",
    };
  });
}

/**
 * How ✗ rows and ⚠ lines name a layer: its level (`role`, `global`, …), and for a skill the skill too
 * (`skill (triage)`), since several skills can be loaded at once and each is its own layer.
 */
export function layerWord(layer: Layer): string {
  return layer.level === "skill" ? layer.label.replace(/ via .*$/, "") : layer.level;
}
