import type { PatternEntry, Policy } from "../model/policy.js";
import { compileToolSchemas, type CompiledToolSchema } from "../schema/compileToolSchemas.js";
import { compileItemRules, type CompiledItemRules } from "./itemRules.js";
import { PolicyNameIndex } from "./nameIndex.js";

/** A policy with every pattern indexed and every schema compiled, ready for many decisions. */
export interface CompiledPolicy {
  policy: Policy;
  deny: PolicyNameIndex;
  /** `null`: the policy has no allowlist. */
  allow: PolicyNameIndex | null;
  approvalRequired: PolicyNameIndex;
  restrictScope: PolicyNameIndex;
  redactArgs: PolicyNameIndex;
  schemas: ReadonlyMap<string, CompiledToolSchema>;
  /** The opt-in `resources:` / `prompts:` sections; `null` when the policy has none (nothing filtered). */
  resources: CompiledItemRules | null;
  prompts: CompiledItemRules | null;
}

/** Compiles once at load: all schemas, all patterns. Pure; a schema that fails only affects its tool. */
export function compilePolicy(policy: Policy): CompiledPolicy {
  const schemaValues: Record<string, unknown> = {};
  for (const [tool, entry] of Object.entries(policy.schemas)) schemaValues[tool] = entry.schema;
  return {
    policy,
    deny: index(policy.tools.deny),
    allow: policy.tools.allow === null ? null : index(policy.tools.allow),
    approvalRequired: index(policy.tools.approvalRequired),
    restrictScope: index(policy.tools.restrictScope),
    redactArgs: index(policy.tools.redactArgs),
    schemas: compileToolSchemas(schemaValues, policy.sharedDefs),
    resources: compileItemRules("resource", policy.resources),
    prompts: compileItemRules("prompt", policy.prompts),
  };
}

function index(entries: readonly PatternEntry[]): PolicyNameIndex {
  return new PolicyNameIndex(entries);
}
