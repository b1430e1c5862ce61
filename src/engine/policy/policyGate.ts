import { compilePolicyWildcard } from "../patterns/index.js";
import type { PatternEntry } from "../model/policy.js";
import { unmatchedPins } from "../pins/drift.js";
import type { CompiledPolicy } from "./compile.js";
import { argumentsObject, decideCall, decideName, limitReached } from "./decide.js";
import type { CallContext, Decision, SessionCounters } from "../model/decision.js";
import type { LimitRefusal, NameVerdict, ToolContext, ToolDefinition, ToolGate } from "../model/gate.js";
import { createPinStage } from "./pinStage.js";

export interface PolicyGateOptions {
  /** The server as `tool_pins` entries name it (`server_id`), when the gate serves one known server. */
  serverId?: string;
  /**
   * Every server this policy file serves (serve: mcp.json's names). A pin naming one of them is not
   * misaddressed; without the list the gate's own server is the only one.
   */
  servers?: readonly string[];
  /**
   * The server's name in a configuration directory (serve, `wrap --config-dir`, info, console): a
   * tools.deny entry `<name>__<tool>`, the tool as serve's direct mode shows it, denies its tool too.
   */
  gatewayName?: string;
}

/**
 * The ToolGate of a policy file alone: its name rules hide, then its pins withhold (a drifted tool, or an
 * unpinned one under `unpinned_tools: deny`), and its call rules decide.
 */
export function createPolicyGate(compiled: CompiledPolicy, options: PolicyGateOptions = {}): ToolGate {
  const explain = compiled.policy.enforcement.deniedTools === "explain";
  const pins = compiled.policy.toolPins;
  const pinsApply = pins.length > 0 || compiled.policy.enforcement.unpinnedTools === "deny";
  const pinVerdict = createPinStage(compiled.policy);
  const gatewayName = options.gatewayName;
  const denyPatterns = compiled.policy.tools.deny.map((entry) => ({
    entry,
    w: compilePolicyWildcard(entry.pattern),
  }));
  const shownAs = (tool: string) => (gatewayName === undefined ? undefined : `${gatewayName}__${tool}`);
  return {
    policyDigest: compiled.policy.digest,
    visibility(tool: ToolDefinition, context?: ToolContext): NameVerdict {
      const name = decideName(compiled, tool.name, shownAs(tool.name));
      if (!name.allowed || !pinsApply) {
        return {
          visible: name.allowed,
          explain: !name.allowed && explain,
          code: name.code,
          rule: name.rule,
          reason: name.reason,
        };
      }
      const serverId = context?.serverId ?? options.serverId;
      const drift = pinVerdict(tool, context, serverId);
      if (drift === null) {
        return { visible: true, explain: false, code: null, rule: name.rule, reason: name.reason };
      }
      return { visible: false, explain, code: drift.code, rule: drift.rule, reason: drift.reason };
    },
    decideCall(tool: string, args: unknown, counters: SessionCounters, context?: CallContext): Decision {
      const qualified = shownAs(tool);
      const decided = withPolicySchema(compiled, tool, context);
      return decideCall(
        compiled,
        tool,
        { kind: "value", value: args },
        counters,
        qualified === undefined ? decided : { ...decided, shownAs: qualified },
      );
    },
    limited:
      compiled.policy.limits.maxRequestsTotal !== undefined ||
      compiled.policy.limits.maxToolCallsTotal !== undefined,
    requestLimit(counters: SessionCounters): LimitRefusal | null {
      const reached = limitReached(compiled, counters, false);
      return reached === null ? null : { code: "E_RATE_LIMIT", ...reached };
    },
    redaction(tool: string) {
      if (compiled.redactArgs.firstMatch(tool) === undefined) return null;
      // The loader gives every policy that lists tools under redact_args a contract; a policy built another
      // way gets the cautious default (every string masked).
      return (
        compiled.policy.tools.redactArgsContract ?? { redactionMode: "mask", redactionScope: "all_fields" }
      );
    },
    unmatchedDeny(toolNames: readonly string[]): readonly PatternEntry[] {
      return denyPatterns
        .filter(
          ({ w }) =>
            !toolNames.some((n) => w.matches(n) || (gatewayName !== undefined && w.matches(shownAs(n)!))),
        )
        .map(({ entry }) => entry);
    },
    catalogWarnings(toolNames: readonly string[], serverId?: string): string[] {
      const id = serverId ?? options.serverId;
      // Every pin names a server toolgate does not serve: a server that renamed itself slips out of all.
      const served = new Set([...(options.servers ?? []), ...(id === undefined ? [] : [id])]);
      const named = pins.filter((p) => p.serverId !== undefined);
      const elsewhere =
        id !== undefined &&
        named.length > 0 &&
        named.length === pins.length &&
        !named.some((p) => served.has(p.serverId!))
          ? [
              `every tool_pins entry names another server (${[...new Set(named.map((p) => `'${p.serverId}'`))].join(", ")}) than this one ('${id}'), so no pin applies to it; its tools are ${compiled.policy.enforcement.unpinnedTools === "deny" ? "withheld (unpinned_tools: deny)" : "shown unpinned (unpinned_tools: allow)"}`,
            ]
          : [];
      return [
        ...elsewhere,
        ...unmatchedPins(pins, toolNames, id).map(
          (pin) =>
            `tool_pins.${pin.key} pins tool '${pin.toolName}'${pin.serverId === undefined ? "" : ` of server '${pin.serverId}'`}, which the server${id === undefined ? "" : ` '${id}'`} no longer lists (renamed or removed?)${pin.at.line > 0 ? ` [${pin.at.file}:${pin.at.line}]` : ""}`,
        ),
      ];
    },
  };
}

/**
 * Which arguments are paths or resources is read from the server's inputSchema (context) and the policy's
 * own schema for the tool together (`allOf`: argumentTargets.ts walks both), so neither can narrow what the
 * other names.
 */
function withPolicySchema(
  compiled: CompiledPolicy,
  tool: string,
  context: CallContext | undefined,
): CallContext | undefined {
  if (context?.inputSchema === undefined) return context;
  const own = Object.hasOwn(compiled.policy.schemas, tool)
    ? compiled.policy.schemas[tool]!.schema
    : undefined;
  if (own === undefined) return context;
  return { ...context, inputSchema: { allOf: [context.inputSchema, own] } };
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
    limited: false,
    requestLimit: () => null,
  };
}
