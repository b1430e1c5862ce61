import type { RealpathHook, Rule } from "../engine/model/decision.js";
import type { ToolDefinition, ToolGate } from "../engine/model/gate.js";
import type { PolicyTestCase, TestExpectation } from "../config/policyTestFile.js";
import type { PolicyCatalog } from "../config/catalogFile.js";
import { callVerdict } from "./callVerdict.js";
import type { CatalogSnapshot } from "./toolCatalog.js";

/**
 * One case of a policy test file (`toolgate policy test`, the start-up self-test) decided by exactly what
 * the gateway decides with: the call through callVerdict (name stage, call stage, obligations, as a session
 * does), the `tools/list` through each tool's name-stage verdict. Pure: the caller resolves the context to
 * its gates and brings the catalog.
 */

/** What the case's context enables: per enabled server its gate, and every configured server's name. */
export interface CaseGates {
  gates: ReadonlyMap<string, ToolGate>;
  configured: readonly string[];
}

export interface ActualOutcome {
  decision?: "allow" | "deny" | "hidden";
  code: string | null;
  rule: Rule | null;
  reason: string;
  visible?: string[];
  obligations?: string[];
}

export type CaseResult =
  | { case: PolicyTestCase; kind: "decided"; passed: boolean; actual: ActualOutcome; mismatches: string[] }
  /** The case cannot be decided as written (an unknown server, a catalog without it): bad input. */
  | { case: PolicyTestCase; kind: "unusable"; message: string; hint?: string };

export interface CaseOptions {
  realpath?: RealpathHook;
}

export function evaluateCase(
  testCase: PolicyTestCase,
  context: CaseGates,
  catalog: PolicyCatalog,
  options: CaseOptions = {},
): CaseResult {
  const request = testCase.request;
  const unusable = (message: string, hint?: string): CaseResult => ({
    case: testCase,
    kind: "unusable",
    message,
    ...(hint === undefined ? {} : { hint }),
  });
  let server = request.server;
  if (server === undefined) {
    if (context.configured.length !== 1) {
      return unusable(
        `the case names no server and ${context.configured.length} are configured`,
        `add server: (one of ${context.configured.join(", ")})`,
      );
    }
    server = context.configured[0]!;
  }
  if (!context.configured.includes(server)) {
    return unusable(
      `server '${server}' is not configured`,
      `servers: ${context.configured.join(", ") || "(none)"}`,
    );
  }
  const gate = context.gates.get(server);
  if (gate === undefined) {
    // A server the context does not enable is not offered at all: nothing listed, every call unanswered.
    const reason = `server '${server}' is not enabled in this context`;
    const actual: ActualOutcome =
      request.kind === "list"
        ? { code: null, rule: null, reason, visible: [] }
        : { decision: "hidden", code: null, rule: null, reason, obligations: [] };
    return judged(testCase, actual);
  }
  const tools = catalog.get(server);
  if (tools === undefined) {
    return unusable(
      `the catalog has no server '${server}'`,
      "save it again with `toolgate catalog save` including this server, or test against the live servers",
    );
  }
  // The gate knows the server as its pins name it (serverFilter, policyGates): no serverId to override it.
  const toolContext = (t: ToolDefinition) => ({
    listed: true,
    exactSchemaText: () => tools.rawSchemas.get(t.name),
  });
  if (request.kind === "list") {
    const visible = tools.tools.filter((t) => gate.visibility(t, toolContext(t)).visible).map((t) => t.name);
    return judged(testCase, { code: null, rule: null, reason: "", visible });
  }
  const byName = new Map(tools.tools.map((t) => [t.name, t]));
  const snapshot: CatalogSnapshot = {
    tools: byName,
    exactSchemaText: (name) => tools.rawSchemas.get(name),
  };
  const counters = { toolCalls: 0, requests: 0 };
  const verdict = callVerdict({
    gate,
    tool: request.tool,
    args: request.arguments,
    lookup: { kind: "none" },
    catalog: { ok: true, snapshot },
    toolContext: toolContext({ name: request.tool }),
    counters,
    shownBefore: false,
    cannotAsk: request.approval === "ask" ? null : "the test case gives no approval (approval: none)",
    ...(options.realpath === undefined ? {} : { realpath: options.realpath }),
  });
  const definition = byName.get(request.tool);
  // The obligations the call stage attached, for a tool the name stage lets through.
  const obligations =
    verdict.kind === "hidden" || definition === undefined || !gate.visibility(definition).visible
      ? []
      : gate
          .decideCall(request.tool, request.arguments, counters, {
            ...(definition.inputSchema === undefined ? {} : { inputSchema: definition.inputSchema }),
            ...(options.realpath === undefined ? {} : { realpath: options.realpath }),
          })
          .obligations.map((o) => o.kind);
  return judged(testCase, {
    decision: verdict.kind,
    code: verdict.kind === "allow" ? null : verdict.code,
    rule: verdict.rule,
    reason: verdict.reason,
    obligations,
  });
}

/** `kind value`, as a failure line shows a rule. */
export function ruleText(rule: Rule | null): string {
  return rule === null ? "(none)" : `${rule.kind} ${rule.value}`;
}

/** The expectation's `rule:` names the rule by its pattern or value, by its kind, or by both. */
export function ruleMatches(expected: string, rule: Rule | null): boolean {
  if (rule === null) return false;
  return expected === rule.value || expected === rule.kind || expected === `${rule.kind} ${rule.value}`;
}

function judged(testCase: PolicyTestCase, actual: ActualOutcome): CaseResult {
  const mismatches = compare(testCase.expect, actual);
  return { case: testCase, kind: "decided", passed: mismatches.length === 0, actual, mismatches };
}

function compare(expect: TestExpectation, actual: ActualOutcome): string[] {
  const out: string[] = [];
  if (expect.decision !== undefined && expect.decision !== actual.decision) {
    out.push(`decision: expected ${expect.decision}, got ${actual.decision ?? "(none)"}`);
  }
  if (expect.code !== undefined && expect.code !== actual.code) {
    out.push(`code: expected ${expect.code}, got ${actual.code ?? "(none)"}`);
  }
  if (expect.rule !== undefined && !ruleMatches(expect.rule, actual.rule)) {
    out.push(`rule: expected ${expect.rule}, got ${ruleText(actual.rule)}`);
  }
  if (expect.visible !== undefined) {
    const diff = setDiff(expect.visible, actual.visible ?? []);
    if (diff !== null) out.push(`visible: ${diff}`);
  }
  if (expect.obligations !== undefined) {
    const diff = setDiff(expect.obligations, actual.obligations ?? []);
    if (diff !== null) out.push(`obligations: ${diff}`);
  }
  return out;
}

/** `null` when the two hold the same names; else what is missing and what is extra. */
function setDiff(expected: readonly string[], actual: readonly string[]): string | null {
  const missing = expected.filter((n) => !actual.includes(n));
  const extra = [...new Set(actual)].filter((n) => !expected.includes(n));
  if (missing.length === 0 && extra.length === 0) return null;
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.join(", ")}`);
  if (extra.length > 0) parts.push(`unexpected ${extra.join(", ")}`);
  return `${parts.join("; ")} (got [${actual.join(", ")}])`;
}
