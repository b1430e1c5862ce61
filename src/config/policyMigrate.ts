import { Document, isScalar, isSeq, Scalar } from "yaml";
import { ToolgateError } from "../engine/errors.js";
import { formatDiagnostic } from "../engine/model/diagnostics.js";
import { loadPolicyText } from "./policyLoader.js";
import { isJsonNumeric, JsonNumber } from "../engine/json/jsonNumber.js";
import { exactlyEqual } from "../engine/schema/exactNumbers.js";

/** A number kept as written (jsonNumber.ts) goes into YAML as its literal, a plain scalar. */
const JSON_NUMBER_TAG = {
  identify: (value: unknown) => value instanceof JsonNumber,
  default: true,
  tag: "tag:yaml.org,2002:float",
  resolve: (text: string) => text,
  stringify: (item: { value: unknown }) => (item.value as JsonNumber).text,
};
import type {
  ItemRules,
  PatternEntry,
  Policy,
  RedactContract,
  ScopeContract,
  ToolPin,
} from "../engine/model/policy.js";

/** True for v1 files and for v2 files that still use deprecated constructs (root allow/deny, constraints). */
export function needsMigration(policy: Policy): boolean {
  return (
    policy.sourceVersion === "1.0" ||
    policy.legacy?.rootAllowDeny === true ||
    policy.legacy?.constraints === true ||
    Object.values(policy.schemas).some((s) => s.fromV1Constraints)
  );
}

/**
 * The v2 text of a loaded policy: `version: "2.0"`, root allow/deny under `tools`, v1 constraints as
 * `schemas`, every other setting as loaded. Written from the normalized model, so the output decides
 * every call as the original did; it is reloaded here and compared before it is returned. Deterministic:
 * the same policy gives the same bytes. Comments inside the original are not carried over, except the
 * header comment block of `sourceText` when it is given.
 */
export function migratePolicy(policy: Policy, sourceText?: string): string {
  const doc = policyDocument(policy);
  const header = sourceText === undefined ? undefined : headerComment(sourceText);
  if (header !== undefined) doc.commentBefore = header;
  const text = doc.toString({ lineWidth: 100, flowCollectionPadding: false });

  const reloaded = loadPolicyText(policy.file, text);
  if (reloaded.policy === null) {
    const first = reloaded.diagnostics.find((d) => d.severity === "error");
    throw new ToolgateError(
      "E_POLICY_MIGRATE",
      `migrated policy for ${policy.file} does not load${first ? `: ${formatDiagnostic(first)}` : ""}`,
    );
  }
  if (!decidesAlike(policy, reloaded.policy)) {
    throw new ToolgateError(
      "E_POLICY_MIGRATE",
      `migrated policy for ${policy.file} would not decide as the original; nothing written`,
    );
  }
  return text;
}

/**
 * The v2 form of a loaded policy as a YAML document (what migratePolicy writes), for a writer that adds
 * comments of its own (`policy suggest`). Pattern lists in flow style, numbers as written.
 */
export function policyDocument(policy: Policy): Document {
  const doc = new Document(migratedObject(policy), { customTags: [JSON_NUMBER_TAG] });
  styleScalars(doc);
  return doc;
}

/** Whether two policies decide every call alike (their decision views are equal, numbers exactly). */
export function decidesAlike(a: Policy, b: Policy): boolean {
  return sameJson(decisionView(a), decisionView(b));
}

/**
 * Everything of a policy that takes part in a decision, without source positions: two policies with
 * equal views decide every call the same way.
 */
export function decisionView(policy: Policy): unknown {
  const patterns = (list: PatternEntry[]) => list.map((e) => e.pattern);
  return {
    allow: policy.tools.allow === null ? null : patterns(policy.tools.allow),
    deny: patterns(policy.tools.deny),
    approvalRequired: patterns(policy.tools.approvalRequired),
    restrictScope: patterns(policy.tools.restrictScope),
    redactArgs: patterns(policy.tools.redactArgs),
    restrictScopeContract: policy.tools.restrictScopeContract
      ? scopeContractYaml(policy.tools.restrictScopeContract)
      : null,
    redactArgsContract: policy.tools.redactArgsContract
      ? redactContractYaml(policy.tools.redactArgsContract)
      : null,
    schemas: Object.keys(policy.schemas)
      .sort()
      .map((tool) => [tool, policy.schemas[tool]!.schema]),
    sharedDefs: policy.sharedDefs,
    enforcement: policy.enforcement,
    limits: {
      max_requests_total: policy.limits.maxRequestsTotal ?? null,
      max_tool_calls_total: policy.limits.maxToolCallsTotal ?? null,
    },
    toolPins: policy.toolPins.map((p) => [p.key, pinYaml(p)]),
    resources: itemRulesYaml(policy.resources) ?? null,
    prompts: itemRulesYaml(policy.prompts) ?? null,
  };
}

/** The opt-in `resources:` / `prompts:` section as written (allow only when the file had one). */
function itemRulesYaml(rules: ItemRules | undefined): Record<string, unknown> | undefined {
  if (rules === undefined) return undefined;
  const out: Record<string, unknown> = {};
  if (rules.allow !== null) out.allow = rules.allow.map((e) => e.pattern);
  out.deny = rules.deny.map((e) => e.pattern);
  return out;
}

function migratedObject(policy: Policy): Record<string, unknown> {
  const out: Record<string, unknown> = { version: "2.0" };
  if (policy.name !== undefined) out.name = policy.name;
  if (policy.description !== undefined) out.description = policy.description;

  const tools: Record<string, unknown> = {};
  const t = policy.tools;
  if (t.allow !== null) tools.allow = t.allow.map((e) => e.pattern);
  if (t.deny.length > 0) tools.deny = t.deny.map((e) => e.pattern);
  if (t.approvalRequired.length > 0) tools.approval_required = t.approvalRequired.map((e) => e.pattern);
  if (t.restrictScope.length > 0) tools.restrict_scope = t.restrictScope.map((e) => e.pattern);
  if (t.redactArgs.length > 0) tools.redact_args = t.redactArgs.map((e) => e.pattern);
  if (t.restrictScopeContract !== undefined)
    tools.restrict_scope_contract = scopeContractYaml(t.restrictScopeContract);
  if (t.redactArgsContract !== undefined)
    tools.redact_args_contract = redactContractYaml(t.redactArgsContract);
  if (Object.keys(tools).length > 0) out.tools = tools;

  const schemas: Record<string, unknown> = {};
  if (policy.sharedDefsAt !== undefined || Object.keys(policy.sharedDefs).length > 0)
    schemas.$defs = policy.sharedDefs;
  for (const tool of Object.keys(policy.schemas)) defineKey(schemas, tool, policy.schemas[tool]!.schema);
  if (Object.keys(schemas).length > 0) out.schemas = schemas;

  const e = policy.enforcement;
  const enforcement: Record<string, unknown> = { unconstrained_tools: e.unconstrainedTools };
  if (e.deniedTools !== "hide") enforcement.denied_tools = e.deniedTools;
  if (e.unpinnedTools !== "allow") enforcement.unpinned_tools = e.unpinnedTools;
  out.enforcement = enforcement;

  const limits: Record<string, unknown> = {};
  if (policy.limits.maxRequestsTotal !== undefined)
    limits.max_requests_total = policy.limits.maxRequestsTotal;
  if (policy.limits.maxToolCallsTotal !== undefined)
    limits.max_tool_calls_total = policy.limits.maxToolCallsTotal;
  if (Object.keys(limits).length > 0) out.limits = limits;

  if (policy.toolPins.length > 0) {
    const pins: Record<string, unknown> = {};
    for (const p of policy.toolPins) defineKey(pins, p.key, pinYaml(p));
    out.tool_pins = pins;
  }
  const resources = itemRulesYaml(policy.resources);
  if (resources !== undefined) out.resources = resources;
  const prompts = itemRulesYaml(policy.prompts);
  if (prompts !== undefined) out.prompts = prompts;
  return out;
}

function scopeContractYaml(c: ScopeContract): Record<string, unknown> {
  const out: Record<string, unknown> = {
    scope_type: c.scopeType,
    scope_value: c.scopeValues ?? c.scopeValue,
    scope_match_mode: c.scopeMatchMode,
  };
  if (c.pathArguments !== undefined) out.path_arguments = c.pathArguments;
  if (c.realpath !== undefined) out.realpath = c.realpath;
  return out;
}

function redactContractYaml(c: RedactContract): Record<string, unknown> {
  const out: Record<string, unknown> = {
    redaction_target: c.redactionTarget,
    redaction_mode: c.redactionMode,
    redaction_scope: c.redactionScope,
  };
  if (c.fields !== undefined) out.fields = c.fields;
  return out;
}

function pinYaml(p: ToolPin): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (p.serverId !== undefined) out.server_id = p.serverId;
  out.tool_name = p.toolName;
  out.schema_hash = p.schemaHash;
  out.meta_hash = p.metaHash;
  if (p.exactSchemaHash !== undefined) out.exact_schema_hash = p.exactSchemaHash;
  return out;
}

/** Pattern lists in flow style with quoted entries, the way the spec writes them; version quoted. */
function styleScalars(doc: Document): void {
  const version = doc.get("version", true);
  if (isScalar(version)) version.type = Scalar.QUOTE_DOUBLE;
  for (const key of ["allow", "deny", "approval_required", "restrict_scope", "redact_args"]) {
    const seq = doc.getIn(["tools", key], true);
    if (!isSeq(seq)) continue;
    seq.flow = true;
    for (const item of seq.items) if (isScalar(item)) item.type = Scalar.QUOTE_DOUBLE;
  }
}

/** The comment lines at the top of the original file (a licence line, an owner note …). */
function headerComment(sourceText: string): string | undefined {
  const lines: string[] = [];
  for (const line of sourceText.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    if (/^\s*#/.test(line)) lines.push(line.replace(/^\s*#/, ""));
    else if (line.trim() === "" && lines.length > 0) break;
    else if (line.trim() !== "") break;
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/** An own key even when it is `__proto__`. */
function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // A number kept as written (a schema's 9007199254740993) is the same number however it is spelled.
  if (a instanceof JsonNumber || b instanceof JsonNumber)
    return isJsonNumeric(a) && isJsonNumeric(b) && exactlyEqual(a, b);
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameJson(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b as object, k) &&
      sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
