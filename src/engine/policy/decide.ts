import type { PatternEntry } from "../model/policy.js";
import { JsonNumber } from "../json/jsonNumber.js";
import { parseStrictJson } from "../json/strictJson.js";
import type { CompiledPolicy } from "./compile.js";
import { checkApprovalArtifact } from "../controls/approval.js";
import { callResources } from "../controls/callResources.js";
import { evaluateScope } from "../controls/scope.js";
import type {
  CallContext,
  Decision,
  Obligation,
  Rule,
  SessionCounters,
  Violation,
} from "../model/decision.js";
import type { ReasonCode } from "../model/reasonCodes.js";

/** Arguments as they reach a decision: a parsed value (proxy) or JSON text still to be parsed (CLI). */
export type CallArguments = { kind: "value"; value: unknown } | { kind: "json"; text: string };

export interface NameOutcome {
  allowed: boolean;
  code: ReasonCode | null;
  rule: Rule | null;
  reason: string;
}

const POLICY = "policy";

/**
 * The name rules alone: deny beats allow; with an allowlist, a tool must match it. `shownAs` is the tool's
 * name through the gateway (`<server>__<tool>`): a tools.deny entry written that way denies it too, since
 * denying more than the entry's author meant cannot be, and denying less would fail open.
 */
export function decideName(compiled: CompiledPolicy, tool: string, shownAs?: string): NameOutcome {
  const own = compiled.deny.firstMatch(tool);
  const denied = own ?? (shownAs === undefined ? undefined : compiled.deny.firstMatch(shownAs));
  if (denied !== undefined) {
    const via = own === undefined ? ` (its name through the gateway, '${shownAs}')` : "";
    return {
      allowed: false,
      code: "E_TOOL_DENIED",
      rule: entryRule("tools.deny", denied),
      reason: `tool '${tool}' is denied by tools.deny entry '${denied.pattern}'${via}`,
    };
  }
  if (compiled.allow === null) {
    return {
      allowed: true,
      code: null,
      rule: { layer: POLICY, kind: "tools.allow", value: "(no allowlist: every tool not denied)" },
      reason: `tool '${tool}' is not denied and the policy has no allowlist`,
    };
  }
  const allowed = compiled.allow.firstMatch(tool);
  if (allowed === undefined) {
    return {
      allowed: false,
      code: "E_TOOL_NOT_ALLOWED",
      rule: { layer: POLICY, kind: "tools.allow", value: "(no entry matches)" },
      reason:
        compiled.allow.size === 0
          ? `tool '${tool}' is not allowed: tools.allow is empty, so nothing is allowed`
          : `tool '${tool}' matches no tools.allow entry`,
    };
  }
  return {
    allowed: true,
    code: null,
    rule: entryRule("tools.allow", allowed),
    reason: `tool '${tool}' is allowed by tools.allow entry '${allowed.pattern}'`,
  };
}

/**
 * The call decision, in the order of the policy-files spec and docs/design.md, two stages: deny by name → allowlist →
 * limits → schema → unconstrained enforcement → scope restriction (`E_SCOPE_VIOLATION`) → approval
 * (`E_APPROVAL_REQUIRED` when no valid artifact came with the call and `context.canElicit` is `false`) →
 * obligations. Synchronous, and pure apart from reading the clock when `context.now` is absent and calling
 * `context.realpath` when a scope asks for it.
 */
export function decideCall(
  compiled: CompiledPolicy,
  tool: string,
  args: CallArguments,
  counters: SessionCounters,
  context?: CallContext,
): Decision {
  const name = decideName(compiled, tool, context?.shownAs);
  if (!name.allowed) return deny(tool, name.code!, name.reason, name.rule);

  const limit = limitReached(compiled, counters, true);
  if (limit !== null) return deny(tool, "E_RATE_LIMIT", limit.reason, limit.rule);

  // The argument stages run before approval, so nobody is asked about a call they refuse; their refusal
  // says the approval that would have followed, so the person reading it learns both at once.
  const controls = controlEntries(compiled, tool);
  const approvalEntry = controls.approval;
  const refuse = (code: ReasonCode, reason: string, rule: Rule | null, violations: Violation[] = []) =>
    deny(tool, code, reason + approvalAhead(approvalEntry), rule, violations);

  const parsed = argumentsObject(args);
  if (!parsed.ok) {
    return refuse("E_ARG_SCHEMA", parsed.violation.message, schemaRule(compiled, tool), [parsed.violation]);
  }

  const warnings: ReasonCode[] = [];
  const schema = compiled.schemas.get(tool);
  if (schema !== undefined) {
    const rule = schemaRule(compiled, tool);
    if (!schema.ok) {
      return refuse("E_SCHEMA_COMPILE", `the schema for '${tool}' does not compile: ${schema.error}`, rule);
    }
    const violations = schema.validate(parsed.value);
    if (violations.length > 0) {
      const first = violations[0]!;
      const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : "";
      const where = first.path === "" ? "arguments" : first.path;
      return refuse("E_ARG_SCHEMA", `${where} ${first.message}${more}`, rule, violations);
    }
  } else {
    const mode = compiled.policy.enforcement.unconstrainedTools;
    const rule: Rule = { layer: POLICY, kind: "enforcement.unconstrained_tools", value: mode };
    if (mode === "deny") {
      return refuse(
        "E_TOOL_UNCONSTRAINED",
        `tool '${tool}' has no schema and unconstrained tools are denied`,
        rule,
      );
    }
    if (mode === "warn") warnings.push("E_TOOL_UNCONSTRAINED");
  }

  const obligations: Obligation[] = [];

  const scopeEntry = controls.scope;
  let scopeObligation: Obligation | undefined;
  if (scopeEntry !== undefined) {
    const rule = entryRule("tools.restrict_scope", scopeEntry);
    const contract = compiled.policy.tools.restrictScopeContract;
    if (contract === undefined) {
      // The loader refuses this; a policy built another way must not pass unchecked.
      return refuse(
        "E_SCOPE_VIOLATION",
        `tool '${tool}' is scope-restricted but the policy has no restrict_scope_contract`,
        rule,
      );
    }
    const inputSchema = context?.inputSchema ?? policySchema(compiled, tool);
    const scope = evaluateScope(contract, tool, parsed.value, inputSchema, context?.realpath);
    if (scope.violations.length > 0) {
      const first = scope.violations[0]!;
      const more = scope.violations.length > 1 ? ` (and ${scope.violations.length - 1} more)` : "";
      const where = first.path === "" ? "" : `${first.path} `;
      return refuse("E_SCOPE_VIOLATION", `${where}${first.message}${more}`, rule, scope.violations);
    }
    scopeObligation = { kind: "restrict_scope", rule, status: "enforced", checked: scope.checked };
  }

  if (approvalEntry !== undefined) {
    const rule = entryRule("tools.approval_required", approvalEntry);
    const approval = approvalStep(compiled, tool, parsed.value, rule, context);
    if ("decision" in approval) return approval;
    obligations.push(approval);
  }
  if (scopeObligation !== undefined) obligations.push(scopeObligation);
  const redact = controls.redact;
  if (redact !== undefined) {
    const o: Obligation = { kind: "redact_args", rule: entryRule("tools.redact_args", redact) };
    const contract = compiled.policy.tools.redactArgsContract;
    if (contract !== undefined) o.contract = contract;
    obligations.push(o);
  }

  return {
    decision: "allow",
    code: null,
    warnings,
    tool,
    reason: name.reason,
    rule: name.rule,
    violations: [],
    obligations,
  };
}

/** The entries that attach a control to calls of `tool` (first match of each list), as decideCall reads them. */
export interface ControlEntries {
  approval: PatternEntry | undefined;
  scope: PatternEntry | undefined;
  redact: PatternEntry | undefined;
}

/** Which controls a call of `tool` gets; decideCall and `policy diff` both read them here. */
export function controlEntries(compiled: CompiledPolicy, tool: string): ControlEntries {
  return {
    approval: compiled.approvalRequired.firstMatch(tool),
    scope: compiled.restrictScope.firstMatch(tool),
    redact: compiled.redactArgs.firstMatch(tool),
  };
}

/**
 * A valid artifact satisfies the approval; otherwise the gateway must ask a person (`pending`), and when
 * it has said it cannot, the call is denied here.
 */
function approvalStep(
  compiled: CompiledPolicy,
  tool: string,
  args: Record<string, unknown>,
  rule: Rule,
  context: CallContext | undefined,
): Obligation | Decision {
  let problem: string | undefined;
  let artifactDigest: string | undefined;
  if (context?.approvalProblem !== undefined) {
    problem = context.approvalProblem;
  } else if (context?.approval !== undefined) {
    const contract = compiled.policy.tools.restrictScopeContract;
    const scoped =
      contract?.scopeType === "path_prefix" && compiled.restrictScope.firstMatch(tool) !== undefined;
    const resource = callResources(
      args,
      scoped ? contract.pathArguments : undefined,
      context.inputSchema ?? policySchema(compiled, tool),
    );
    const check = checkApprovalArtifact(context.approval, {
      tool,
      resource,
      now: context.now ?? new Date(),
      ...(context.approvalKeys === undefined ? {} : { keys: context.approvalKeys }),
      ...(context.principal === undefined ? {} : { principal: context.principal }),
    });
    if (check.ok) {
      const { digest, profile, summary } = check;
      return { kind: "approval_required", rule, status: "satisfied", approval: { digest, profile, summary } };
    }
    problem = check.reason;
    artifactDigest = check.digest;
  }
  if (context?.canElicit === false) {
    const reason =
      problem === undefined
        ? `tool '${tool}' requires approval (tools.approval_required '${rule.value}'): the call carries no approval artifact and the client cannot be asked`
        : `tool '${tool}' requires approval (tools.approval_required '${rule.value}') and the approval artifact is not valid: ${problem}`;
    return deny(tool, "E_APPROVAL_REQUIRED", reason, rule);
  }
  const pending: Obligation = { kind: "approval_required", rule, status: "pending" };
  if (problem !== undefined) pending.artifactProblem = problem;
  if (artifactDigest !== undefined) pending.artifactDigest = artifactDigest;
  return pending;
}

/**
 * The end of an argument-stage refusal of a tool under `approval_required`: what else the call lacks. Empty
 * for a tool that needs no approval. Like every reason, it names the rule, not where it is written (the
 * same policy decides the same wherever its file is).
 */
export function approvalAhead(entry: PatternEntry | undefined): string {
  if (entry === undefined) return "";
  return `; the call would also need a person's approval (tools.approval_required '${entry.pattern}'), and nobody was asked about a call refused before that step`;
}

function policySchema(compiled: CompiledPolicy, tool: string): unknown {
  return Object.hasOwn(compiled.policy.schemas, tool) ? compiled.policy.schemas[tool]!.schema : undefined;
}

/** `E_RATE_LIMIT` when one more request (and, for a tool call, one more call) would exceed a limit. */
export function limitReached(
  compiled: CompiledPolicy,
  counters: SessionCounters,
  isToolCall: boolean,
): { reason: string; rule: Rule } | null {
  const { maxToolCallsTotal, maxRequestsTotal } = compiled.policy.limits;
  if (isToolCall && maxToolCallsTotal !== undefined && counters.toolCalls >= maxToolCallsTotal) {
    return {
      reason: `limit reached: max_tool_calls_total is ${maxToolCallsTotal} and this session has made ${counters.toolCalls} tool calls`,
      rule: { layer: POLICY, kind: "limits.max_tool_calls_total", value: String(maxToolCallsTotal) },
    };
  }
  if (maxRequestsTotal !== undefined && counters.requests >= maxRequestsTotal) {
    return {
      reason: `limit reached: max_requests_total is ${maxRequestsTotal} and this session has made ${counters.requests} requests`,
      rule: { layer: POLICY, kind: "limits.max_requests_total", value: String(maxRequestsTotal) },
    };
  }
  return null;
}

export type ArgumentsResult =
  { ok: true; value: Record<string, unknown> } | { ok: false; violation: Violation };

/** Arguments must be one JSON object without duplicate keys; anything else is never allowed. */
export function argumentsObject(args: CallArguments): ArgumentsResult {
  let value: unknown;
  if (args.kind === "json") {
    const parsed = parseStrictJson(args.text, { exactNumbers: true });
    if (!parsed.ok) {
      return {
        ok: false,
        violation: {
          path: parsed.path ?? "",
          message: `arguments are not acceptable JSON: ${parsed.message}`,
        },
      };
    }
    value = parsed.value;
  } else {
    // MCP makes `arguments` optional; an absent object is an empty one.
    value = args.value === undefined ? {} : args.value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof JsonNumber) {
    const got =
      value === null
        ? "null"
        : Array.isArray(value)
          ? "an array"
          : value instanceof JsonNumber
            ? "number"
            : typeof value;
    return { ok: false, violation: { path: "", message: `arguments must be an object, got ${got}` } };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function schemaRule(compiled: CompiledPolicy, tool: string): Rule {
  // Own properties only: a tool named `constructor` must not find Object.prototype.constructor.
  const entry = Object.hasOwn(compiled.policy.schemas, tool) ? compiled.policy.schemas[tool] : undefined;
  return entry === undefined
    ? { layer: POLICY, kind: "arguments", value: "(must be an object)" }
    : { layer: POLICY, kind: "schemas", value: tool, at: entry.at };
}

function entryRule(kind: string, entry: PatternEntry): Rule {
  return { layer: POLICY, kind, value: entry.pattern, at: entry.at };
}

function deny(
  tool: string,
  code: ReasonCode,
  reason: string,
  rule: Rule | null,
  violations: Violation[] = [],
): Decision {
  return { decision: "deny", code, warnings: [], tool, reason, rule, violations, obligations: [] };
}
