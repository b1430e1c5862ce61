import { compilePolicyWildcard } from "../patterns/index.js";
import type { PatternEntry, ToolPin } from "../model/policy.js";
import { isStray, pinsForTool, unmatchedPins } from "../pins/drift.js";
import { diagnosticAt, formatDiagnostic } from "../model/diagnostics.js";
import type { CompiledPolicy } from "./compile.js";
import { argumentsObject, decideCall, decideName, limitReached } from "./decide.js";
import type { CallContext, Decision, ItemDecision, ItemKind, SessionCounters } from "../model/decision.js";
import { decideItem } from "./itemRules.js";
import type { LimitRefusal, NameVerdict, ToolContext, ToolDefinition, ToolGate } from "../model/gate.js";
import { createPinStage } from "./pinStage.js";

export interface PolicyGateOptions {
  /**
   * The server as `tool_pins` entries name it (`server_id`), when the gate serves one known server: the name
   * toolgate knows it by (wrap's --server or --label, else the only server the pins name; serve's mcp.json
   * name), never the name the server gives itself.
   */
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
  const served = [...(options.servers ?? []), ...(options.serverId === undefined ? [] : [options.serverId])];
  const servedSet: ReadonlySet<string> = new Set(served);
  const pinVerdict = createPinStage(compiled.policy, served);
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
    itemAccess(kind: ItemKind, name: string, shown?: string): ItemDecision | null {
      const rules = kind === "resource" ? compiled.resources : compiled.prompts;
      // A prompt's name through the gateway (`<name>__<prompt>`) denies it too, as for tools.
      const through = shown ?? (kind === "prompt" ? shownAs(name) : undefined);
      return rules === null ? null : decideItem(rules, name, through);
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
      return [
        ...(id === undefined
          ? []
          : strayPinWarnings(pins, toolNames, id, servedSet, options.servers === undefined)),
        ...unmatchedPins(pins, toolNames, id).map(
          (pin) =>
            `tool_pins.${pin.key} pins tool '${pin.toolName}'${pin.serverId === undefined ? "" : ` of server '${pin.serverId}'`}, which the server${id === undefined ? "" : ` '${id}'`} no longer lists (renamed or removed?)${pin.at.line > 0 ? ` [${pin.at.file}:${pin.at.line}]` : ""}`,
        ),
      ];
    },
  };
}

/**
 * W_PIN_SERVER, for each pin that names a server toolgate does not serve and holds a tool this server lists
 * (it has no pin of its own): the pin applies, but its server_id should say so. A gate for one server
 * (wrap) also names such pins whose tool the server does not list; in front of several servers (serve)
 * another server may list it, so those are left unsaid.
 */
function strayPinWarnings(
  pins: readonly ToolPin[],
  toolNames: readonly string[],
  serverId: string,
  served: ReadonlySet<string>,
  single: boolean,
): string[] {
  const listed = new Set(toolNames);
  const why = "pins name a server as toolgate knows it, never by the name a server gives itself";
  const hint = `write server_id: ${serverId}, as toolgate pin --server ${serverId} does`;
  return pins
    .filter((p) => isStray(p, serverId, served))
    .flatMap((pin) => {
      if (!listed.has(pin.toolName)) {
        if (!single) return [];
        const message = `names server '${pin.serverId}', which toolgate does not serve here, and server '${serverId}' lists no tool '${pin.toolName}' (${why})`;
        return [formatDiagnostic(diagnosticAt("warning", "W_PIN_SERVER", pin.at, message, hint))];
      }
      if (!pinsForTool(pins, pin.toolName, serverId, served).includes(pin)) return [];
      const message = `names server '${pin.serverId}', which toolgate does not serve here; it holds tool '${pin.toolName}' of server '${serverId}', which has no pin of its own (${why})`;
      return [formatDiagnostic(diagnosticAt("warning", "W_PIN_SERVER", pin.at, message, hint))];
    });
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
