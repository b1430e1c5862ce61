import type { CompiledPolicy } from "./compile.js";
import { argumentsObject, decideCall, decideName, limitReached } from "./decide.js";
import type { Decision, SessionCounters } from "./decision.js";
import type { NameVerdict, ToolDefinition, ToolGate } from "./gate.js";

/** The ToolGate of a policy file alone: its name rules hide, its call rules decide. */
export function createPolicyGate(compiled: CompiledPolicy): ToolGate {
  const explain = compiled.policy.enforcement.deniedTools === "explain";
  return {
    policyDigest: compiled.policy.digest,
    visibility(tool: ToolDefinition): NameVerdict {
      const name = decideName(compiled, tool.name);
      return {
        visible: name.allowed,
        explain: !name.allowed && explain,
        code: name.code,
        rule: name.rule,
        reason: name.reason,
      };
    },
    decideCall(tool: string, args: unknown, counters: SessionCounters): Decision {
      return decideCall(compiled, tool, { kind: "value", value: args }, counters);
    },
    requestLimitReached(counters: SessionCounters): boolean {
      return limitReached(compiled, counters, false) !== null;
    },
  };
}

/** The gate without a policy: every tool visible, every well-formed call allowed. */
export function allowAllGate(): ToolGate {
  return {
    policyDigest: null,
    visibility: () => ({
      visible: true,
      explain: false,
      code: null,
      rule: null,
      reason: "no policy: all tools allowed",
    }),
    decideCall(tool: string, args: unknown): Decision {
      const parsed = argumentsObject({ kind: "value", value: args });
      if (!parsed.ok) {
        return {
          decision: "deny",
          code: "E_ARG_SCHEMA",
          warnings: [],
          tool,
          reason: parsed.violation.message,
          rule: { layer: "policy", kind: "arguments", value: "(must be an object)" },
          violations: [parsed.violation],
          obligations: [],
        };
      }
      const reason = "no policy: all tools allowed";
      return {
        decision: "allow",
        code: null,
        warnings: [],
        tool,
        reason,
        rule: null,
        violations: [],
        obligations: [],
      };
    },
    requestLimitReached: () => false,
  };
}
