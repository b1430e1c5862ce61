import type { Policy } from "../model/policy.js";
import type { CallContext, Decision, RealpathHook } from "../model/decision.js";
import type { ToolDefinition, ToolGate } from "../model/gate.js";
import type { ReasonCode } from "../model/reasonCodes.js";
import { pinsForTool } from "../pins/drift.js";
import type { CompiledPolicy } from "./compile.js";
import { controlEntries } from "./decide.js";
import { argumentCandidates, UNEXPECTED_ARGUMENT } from "./diffCandidates.js";
import { entrySide, pinSide, redactionSide, same, schemaSide, scopeSide } from "./diffSides.js";
import type { DiffExample, Effect, ToolChange, ToolChangeKind } from "./diffModel.js";

/**
 * The call stage of one tool that both policies show: which controls each attaches (read where decideCall
 * reads them, decide.ts controlEntries), and argument objects that one policy's gate allows and the other's
 * refuses. Every verdict here is a decision of the gates themselves; this file only compares them.
 */

/** One side of the comparison: a policy and its gate for the tool's server. */
export interface DiffSide {
  compiled: CompiledPolicy;
  gate: ToolGate;
  /** The servers the pins may name (the catalog's), for which pins apply (drift.ts pinsForTool). */
  served: ReadonlySet<string>;
}

export interface CallStageInput {
  server: string;
  tool: ToolDefinition;
  old: DiffSide;
  new: DiffSide;
  realpath?: RealpathHook;
  /** At most this many argument objects are decided by both policies. */
  maxTries: number;
}

const ZERO = { toolCalls: 0, requests: 0 };
const SCHEMA_CODES: ReadonlySet<ReasonCode> = new Set([
  "E_ARG_SCHEMA",
  "E_SCHEMA_COMPILE",
  "E_TOOL_UNCONSTRAINED",
]);

/** The changes of the call stage, in a fixed order: approval, schema, scope, calls, redaction, pins. */
export function callStageChanges(input: CallStageInput): ToolChange[] {
  const name = input.tool.name;
  const oldControls = controlEntries(input.old.compiled, name);
  const newControls = controlEntries(input.new.compiled, name);
  const probe = probeCalls(input);
  const byKind = (kind: ToolChangeKind) => probe.examples.filter((e) => kindOf(e.code) === kind);
  const changes: ToolChange[] = [];

  const approvalOld = entrySide(oldControls.approval);
  const approvalNew = entrySide(newControls.approval);
  if ((approvalOld === null) !== (approvalNew === null)) {
    // A call that needs a person's approval is refused unless one is obtained (E_APPROVAL_REQUIRED).
    const effect: Effect = approvalNew === null ? "newly-allowed" : "newly-denied";
    changes.push({ kind: "approval", effect, old: approvalOld, new: approvalNew });
  }

  const schemaOld = schemaSide(input.old.compiled.policy, name);
  const schemaNew = schemaSide(input.new.compiled.policy, name);
  const schemaExamples = byKind("schema");
  if (!same(schemaOld, schemaNew) || schemaExamples.length > 0) {
    changes.push({
      kind: "schema",
      effect: effectOf(schemaExamples, "changed"),
      old: schemaOld,
      new: schemaNew,
      examples: schemaExamples,
      tried: probe.tried,
    });
  }

  const scopeOld = scopeSide(input.old.compiled.policy, oldControls.scope);
  const scopeNew = scopeSide(input.new.compiled.policy, newControls.scope);
  const scopeExamples = byKind("scope");
  if (!same(scopeOld, scopeNew) || scopeExamples.length > 0) {
    // A restriction added can only refuse more, one removed only less; a changed one is told by example.
    const fallback: Effect =
      scopeOld === null ? "newly-denied" : scopeNew === null ? "newly-allowed" : "changed";
    changes.push({
      kind: "scope",
      effect: effectOf(scopeExamples, fallback),
      old: scopeOld,
      new: scopeNew,
      examples: scopeExamples,
      tried: probe.tried,
    });
  }

  const otherExamples = byKind("calls");
  if (otherExamples.length > 0) {
    changes.push({
      kind: "calls",
      effect: effectOf(otherExamples, "changed"),
      old: null,
      new: null,
      examples: otherExamples,
      tried: probe.tried,
    });
  }

  const redactOld = input.old.gate.redaction?.(name) ?? null;
  const redactNew = input.new.gate.redaction?.(name) ?? null;
  if (!same(redactOld, redactNew)) {
    changes.push({
      kind: "redaction",
      effect: "changed",
      old: redactionSide(redactOld),
      new: redactionSide(redactNew),
    });
  }
  const pinsOld = pinSides(input.old, name, input.server);
  const pinsNew = pinSides(input.new, name, input.server);
  if (!same(pinsOld, pinsNew)) changes.push({ kind: "pins", effect: "changed", old: pinsOld, new: pinsNew });
  return changes;
}

/** The pins that apply to the tool, as the name stage reads them; used when the tool is shown by either. */
export function pinSides(side: DiffSide, tool: string, server: string): Record<string, unknown>[] {
  return pinsForTool(side.compiled.policy.toolPins, tool, server, side.served).map(pinSide);
}

function kindOf(code: ReasonCode | null): ToolChangeKind {
  if (code !== null && SCHEMA_CODES.has(code)) return "schema";
  return code === "E_SCOPE_VIOLATION" ? "scope" : "calls";
}

function effectOf(examples: readonly DiffExample[], fallback: Effect): Effect {
  const effects = new Set(examples.map((e) => e.effect));
  if (effects.size === 1) return [...effects][0]!;
  // Both ways at once: a reviewer must look at both examples; "changed" says neither direction alone.
  return effects.size === 0 ? fallback : "changed";
}

/**
 * Decides argument objects with both gates and keeps, per kind of refusal and per direction, the first
 * one they answer differently. A base object is built first (for each required argument the value most
 * gates allow), then each argument is varied alone, dropped, and an argument no schema names is added.
 */
function probeCalls(input: CallStageInput): { examples: DiffExample[]; tried: number } {
  const { tool } = input;
  const scopeValues = [input.old, input.new].flatMap((side) => {
    const c = side.compiled.policy.tools.restrictScopeContract;
    return c === undefined || controlEntries(side.compiled, tool.name).scope === undefined
      ? []
      : (c.scopeValues ?? [c.scopeValue]);
  });
  const policySchema = (p: Policy) =>
    Object.hasOwn(p.schemas, tool.name) ? p.schemas[tool.name]!.schema : undefined;
  const { required, candidates } = argumentCandidates({
    schemas: [
      tool.inputSchema,
      policySchema(input.old.compiled.policy),
      policySchema(input.new.compiled.policy),
    ],
    sharedDefs: [input.old.compiled.policy.sharedDefs, input.new.compiled.policy.sharedDefs],
    scopeValues,
  });
  const context: CallContext = {
    canElicit: true,
    ...(tool.inputSchema === undefined ? {} : { inputSchema: tool.inputSchema }),
    ...(input.realpath === undefined ? {} : { realpath: input.realpath }),
  };
  let tried = 0;
  const decide = (args: Record<string, unknown>): [Decision, Decision] => {
    tried++;
    return [
      input.old.gate.decideCall(tool.name, args, ZERO, context),
      input.new.gate.decideCall(tool.name, args, ZERO, context),
    ];
  };
  const allowing = (args: Record<string, unknown>) =>
    decide(args).filter((d) => d.decision === "allow").length;

  const base: Record<string, unknown> = {};
  for (const name of required) base[name] = candidates.get(name)?.[0] ?? "example";
  for (const name of required) {
    let best = allowing(base);
    for (const value of candidates.get(name) ?? []) {
      if (best === 2 || tried >= input.maxTries / 2) break;
      const score = allowing({ ...base, [name]: value });
      if (score > best) {
        best = score;
        base[name] = value;
      }
    }
  }

  const found = new Map<string, DiffExample>();
  const consider = (args: Record<string, unknown>): void => {
    const [before, after] = decide(args);
    if (before.decision === after.decision) return;
    const effect = before.decision === "allow" ? "newly-denied" : "newly-allowed";
    const refusal = effect === "newly-denied" ? after : before;
    const key = `${kindOf(refusal.code)} ${effect}`;
    if (found.has(key)) return;
    found.set(key, {
      effect,
      arguments: args,
      code: refusal.code,
      rule: refusal.rule,
      reason: refusal.reason,
    });
  };
  const variations = function* (): Generator<Record<string, unknown>> {
    yield base;
    for (const [name, values] of candidates) for (const value of values) yield { ...base, [name]: value };
    for (const name of Object.keys(base)) {
      const rest = { ...base };
      delete rest[name];
      yield rest;
    }
    yield { ...base, [UNEXPECTED_ARGUMENT]: "x" };
    yield {};
  };
  for (const args of variations()) {
    if (tried >= input.maxTries) break;
    consider(args);
  }
  return { examples: [...found.values()], tried };
}
