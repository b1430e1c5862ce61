import type { Rule } from "../model/decision.js";
import type { ToolDefinition } from "../model/gate.js";
import type { ReasonCode } from "../model/reasonCodes.js";

/**
 * What `toolgate policy diff` compares and what it finds: the shapes shared by the comparison
 * (policyDiff.ts, toolDiff.ts) and the renderers. `--format json` prints these shapes with the key names
 * docs/changing-policies.md lists, so renaming a field here is a change of the documented output.
 */

/** One server of the catalog the two policies are compared over. */
export interface DiffServer {
  /** The server as toolgate knows it (a catalog file's key; the command's name with `-- CMD`). */
  name: string;
  tools: readonly ToolDefinition[];
  /** Each tool's inputSchema as the raw JSON text the server sent, when known (exact pins need it). */
  rawSchemas?: ReadonlyMap<string, string>;
}

/**
 * What a change does to what clients may do. `newly-allowed`: something refused before is now allowed (a
 * tool shown, an argument admitted, a control removed); `newly-denied`: the reverse; `changed`: neither can
 * be said of it (a redaction, a pin, or a schema change no tried argument tells apart).
 */
export type Effect = "newly-allowed" | "newly-denied" | "changed";

/** An argument object one policy admits and the other refuses, decided by each policy's gate. */
export interface DiffExample {
  effect: "newly-allowed" | "newly-denied";
  arguments: Record<string, unknown>;
  /** The refusal of the policy that refuses it: its code, rule and reason. */
  code: ReasonCode | null;
  rule: Rule | null;
  reason: string;
}

export type ToolChangeKind = "visibility" | "approval" | "schema" | "scope" | "calls" | "redaction" | "pins";

export interface ToolChange {
  kind: ToolChangeKind;
  effect: Effect;
  /** What the old policy says of the tool for this kind (null: nothing, e.g. no approval needed). */
  old: unknown;
  new: unknown;
  /** For schema, scope and calls: arguments that tell the two policies apart, one per effect at most. */
  examples?: DiffExample[];
  /** How many argument objects were decided by both policies to look for examples. */
  tried?: number;
}

export interface ToolDiff {
  server: string;
  tool: string;
  changes: ToolChange[];
}

/** A change of a setting that holds for every tool (limits, enforcement, the resources/prompts sections). */
export interface PolicyChange {
  kind: string;
  effect: Effect;
  old: unknown;
  new: unknown;
}

export interface PolicyDiff {
  /** Only the tools with at least one change, by server then tool name. */
  tools: ToolDiff[];
  policy: PolicyChange[];
  /** Tools of the catalog with no change. */
  unchanged: number;
  total: number;
}

/** Every effect the diff holds: of each tool change and each policy change. */
export function effectsOf(diff: PolicyDiff): Set<Effect> {
  const effects = new Set<Effect>();
  for (const t of diff.tools) for (const c of t.changes) effects.add(c.effect);
  for (const c of diff.policy) effects.add(c.effect);
  return effects;
}
