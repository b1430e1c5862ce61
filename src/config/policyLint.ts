import type { ToolgateCode } from "../engine/model/codes.js";
import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { PatternEntry, Policy } from "../engine/model/policy.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import { entryOf } from "./sourceTree.js";
import { compilePolicyWildcard, type PolicyWildcard } from "../engine/patterns/index.js";
import { canOverlap, covers } from "../engine/patterns/wildcardRelations.js";
import { lintItemSections } from "./policyItemLint.js";

/**
 * Warnings about a policy that loaded: lines that do not do what they look like they do, and schemas
 * without the bounds the spec recommends. Every finding names file, line and field path. Pure.
 */
export function lintPolicy(policy: Policy): Diagnostic[] {
  const out: Diagnostic[] = [];
  const allow = policy.tools.allow?.map(compiled) ?? null;
  const deny = policy.tools.deny.map(compiled);

  lintPatternList(out, "deny", deny);
  if (allow !== null) lintPatternList(out, "allow", allow);
  for (const [field, list] of [
    ["approval_required", policy.tools.approvalRequired],
    ["restrict_scope", policy.tools.restrictScope],
    ["redact_args", policy.tools.redactArgs],
  ] as const) {
    const patterns = list.map(compiled);
    lintPatternList(out, field, patterns);
    lintObligationReach(out, field, patterns, allow, deny);
  }
  lintUnconstrained(out, policy, allow, deny);
  lintSchemaKeys(out, policy, allow, deny);
  lintSchemaBounds(out, policy);
  lintItemSections(out, policy);
  return out
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.line - b.d.line || a.d.column - b.d.column || a.i - b.i)
    .map((x) => x.d);
}

interface Compiled {
  entry: PatternEntry;
  w: PolicyWildcard;
}

function compiled(entry: PatternEntry): Compiled {
  return { entry, w: compilePolicyWildcard(entry.pattern) };
}

type ListField = "allow" | "deny" | "approval_required" | "restrict_scope" | "redact_args";

function lintPatternList(out: Diagnostic[], field: ListField, list: Compiled[]): void {
  for (const { entry, w } of list) {
    const p = entry.pattern;
    if (p === "") {
      warn(
        out,
        "W_PATTERN_EMPTY",
        entry.at,
        `the empty pattern matches only a tool with an empty name, so it ${field === "deny" ? "blocks" : "matches"} nothing`,
      );
      continue;
    }
    if (w.hasLiteralStar) {
      const hint = `'*' expands only as the first or last character; name the tools, or use a prefix ('x*'), suffix ('*x') or substring ('*x*') pattern`;
      const what = literalStarReach(w);
      const lead = `'${p}' is not one of the five wildcard forms: its inner '*' is a literal asterisk`;
      if (field === "deny") {
        warn(out, "W_DENY_LITERAL_STAR", entry.at, `${lead}, so it blocks nothing except ${what}`, hint);
      } else if (field === "allow") {
        warn(out, "W_ALLOW_LITERAL_STAR", entry.at, `${lead}, so it matches nothing except ${what}`, hint);
      } else {
        warn(
          out,
          "W_OBLIGATION_LITERAL_STAR",
          entry.at,
          `${lead}, so ${field} applies to nothing except ${what}`,
          hint,
        );
      }
    }
    if (field === "allow" && w.form === "all") {
      warn(
        out,
        "W_ALLOW_ALL",
        entry.at,
        `'${p}' allows every tool, including tools that do not exist yet and ones a future server version adds`,
        "name the tools you mean in allow",
      );
    }
  }
}

/** What a pattern with a literal star still matches, in words. */
function literalStarReach(w: PolicyWildcard): string {
  switch (w.form) {
    case "prefix":
      return `tools whose names literally start with '${w.literal}'`;
    case "suffix":
      return `tools whose names literally end with '${w.literal}'`;
    case "substring":
      return `tools whose names literally contain '${w.literal}'`;
    default:
      return `a tool literally named '${w.literal}'`;
  }
}

/** An obligation on a tool that no allow entry admits, or that deny always blocks, never applies. */
function lintObligationReach(
  out: Diagnostic[],
  field: ListField,
  list: Compiled[],
  allow: Compiled[] | null,
  deny: Compiled[],
): void {
  for (const { entry, w } of list) {
    const blocker = deny.find((d) => covers(d.w, w));
    if (blocker !== undefined) {
      warn(
        out,
        "W_OBLIGATION_UNREACHABLE",
        entry.at,
        `${field} entry '${entry.pattern}' never applies: deny '${blocker.entry.pattern}' (line ${blocker.entry.at.line}) blocks every tool it names`,
      );
      continue;
    }
    if (allow !== null && !allow.some((a) => canOverlap(a.w, w))) {
      warn(
        out,
        "W_OBLIGATION_UNREACHABLE",
        entry.at,
        `${field} entry '${entry.pattern}' never applies: no allow entry admits a tool it names`,
        "add the tool to tools.allow, or remove this entry",
      );
    }
  }
}

function lintUnconstrained(
  out: Diagnostic[],
  policy: Policy,
  allow: Compiled[] | null,
  deny: Compiled[],
): void {
  const mode = policy.enforcement.unconstrainedTools;
  if (allow === null || mode === "allow") return;
  for (const { entry, w } of allow) {
    if (w.form !== "exact" || w.hasLiteralStar || entry.pattern === "") continue;
    if (Object.hasOwn(policy.schemas, entry.pattern)) continue;
    if (deny.some((d) => d.w.matches(entry.pattern))) continue;
    if (mode === "warn") {
      warn(
        out,
        "W_UNCONSTRAINED",
        entry.at,
        `'${entry.pattern}' is allowed without a schema: its calls pass with any arguments (E_TOOL_UNCONSTRAINED)`,
        `add schemas.${entry.pattern}`,
      );
    } else {
      warn(
        out,
        "W_UNCONSTRAINED_DENY",
        entry.at,
        `'${entry.pattern}' is allowed without a schema, and enforcement.unconstrained_tools is deny: every call to it is refused (E_TOOL_UNCONSTRAINED)`,
        `add schemas.${entry.pattern}`,
      );
    }
  }
}

function lintSchemaKeys(out: Diagnostic[], policy: Policy, allow: Compiled[] | null, deny: Compiled[]): void {
  for (const tool of Object.keys(policy.schemas)) {
    const entry = policy.schemas[tool]!;
    if (tool.includes("*")) {
      warn(
        out,
        "W_SCHEMA_KEY_STAR",
        entry.at,
        `schemas are looked up by exact tool name: '${tool}' applies only to a tool literally named so`,
        "write one schema per tool name (share parts with $defs)",
      );
      continue;
    }
    const denied = deny.find((d) => d.w.matches(tool));
    if (denied !== undefined) {
      warn(
        out,
        "W_SCHEMA_UNREACHABLE",
        entry.at,
        `the schema for '${tool}' is never used: deny '${denied.entry.pattern}' (line ${denied.entry.at.line}) blocks the tool`,
      );
    } else if (allow !== null && !allow.some((a) => a.w.matches(tool))) {
      warn(
        out,
        "W_SCHEMA_UNREACHABLE",
        entry.at,
        `the schema for '${tool}' is never used: no allow entry admits the tool`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Schema bounds: the spec's recommended defaults for security-sensitive tools.

interface SchemaScope {
  /** The tool schema's root, for `#/$defs/…` references local to it. */
  root: SourceNode;
  shared: SourceNode | undefined;
}

function lintSchemaBounds(out: Diagnostic[], policy: Policy): void {
  const shared =
    policy.sharedDefsSource ??
    (policy.sharedDefsAt ? plainToNode(policy.sharedDefs, policy.sharedDefsAt) : undefined);
  if (shared !== undefined && shared.kind === "map") {
    for (const e of shared.entries) walkSchema(out, e.value, { root: e.value, shared }, 0);
  }
  for (const tool of Object.keys(policy.schemas)) {
    const entry = policy.schemas[tool]!;
    const node = entry.source ?? plainToNode(entry.schema, entry.at);
    walkSchema(out, node, { root: node, shared }, 0);
  }
}

const MAX_SCHEMA_DEPTH = 64;

function walkSchema(out: Diagnostic[], node: SourceNode, scope: SchemaScope, depth: number): void {
  if (node.kind !== "map" || depth > MAX_SCHEMA_DEPTH) return;
  // A reference is checked where its target is defined, once, not at every use.
  if (entryOf(node, "$ref") === undefined) checkBounds(out, node, scope);

  for (const key of ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]) {
    const child = entryOf(node, key)?.value;
    if (child?.kind === "map") for (const e of child.entries) walkSchema(out, e.value, scope, depth + 1);
  }
  for (const key of [
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
  ]) {
    const child = entryOf(node, key)?.value;
    if (child?.kind === "map") walkSchema(out, child, scope, depth + 1);
    else if (child?.kind === "seq") for (const item of child.items) walkSchema(out, item, scope, depth + 1);
  }
  for (const key of ["allOf", "anyOf", "oneOf", "prefixItems"]) {
    const child = entryOf(node, key)?.value;
    if (child?.kind === "seq") for (const item of child.items) walkSchema(out, item, scope, depth + 1);
  }
}

function checkBounds(out: Diagnostic[], node: SourceMap, scope: SchemaScope): void {
  const types = typesOf(node);
  const enumerated = entryOf(node, "enum") !== undefined || entryOf(node, "const") !== undefined;
  const isObject = types.has("object") || (types.size === 0 && entryOf(node, "properties") !== undefined);
  const isArray =
    types.has("array") ||
    (types.size === 0 &&
      (entryOf(node, "items") !== undefined || entryOf(node, "prefixItems") !== undefined));

  if (isObject) {
    const additional = entryOf(node, "additionalProperties") ?? entryOf(node, "unevaluatedProperties");
    const closed =
      additional !== undefined && (additional.value.kind === "map" || scalarIs(additional.value, false));
    if (!closed) {
      const at = additional?.keyAt ?? node.at;
      warn(
        out,
        "W_SCHEMA_BOUNDS",
        at,
        "object schema admits properties it does not declare",
        "add additionalProperties: false",
      );
    }
    const required = entryOf(node, "required");
    if (required === undefined) {
      warn(
        out,
        "W_SCHEMA_BOUNDS",
        node.at,
        "object schema has no explicit required list",
        "add required: [...] (an empty list if every property is optional)",
      );
    } else if (required.value.kind === "seq") {
      const props = entryOf(node, "properties")?.value;
      for (const item of required.value.items) {
        if (item.kind !== "scalar" || typeof item.value !== "string" || props?.kind !== "map") continue;
        const propEntry = entryOf(props, item.value);
        if (propEntry === undefined) continue;
        const target = resolveRef(propEntry.value, scope);
        if (target === undefined || target.kind !== "map" || !typesOf(target).has("string")) continue;
        if (entryOf(target, "enum") !== undefined || entryOf(target, "const") !== undefined) continue;
        if (unboundedOnPurpose(target)) continue;
        const minLength = entryOf(target, "minLength")?.value;
        if (
          minLength === undefined ||
          !(minLength.kind === "scalar" && typeof minLength.value === "number" && minLength.value >= 1)
        ) {
          warn(
            out,
            "W_SCHEMA_BOUNDS",
            propEntry.keyAt,
            `required string '${item.value}' admits the empty string`,
            "add minLength: 1",
          );
        }
      }
    }
  }
  const onPurpose = unboundedOnPurpose(node);
  if (types.has("string") && !enumerated && !onPurpose && entryOf(node, "maxLength") === undefined) {
    warn(out, "W_SCHEMA_BOUNDS", node.at, "string schema has no maxLength", "add maxLength");
  }
  if (isArray && !enumerated && !onPurpose && entryOf(node, "maxItems") === undefined) {
    warn(out, "W_SCHEMA_BOUNDS", node.at, "array schema has no maxItems", "add maxItems");
  }
}

/**
 * A schema whose `$comment` starts with `unbounded` leaves its length out on purpose (the starter policy
 * writes one on every string and list the server itself leaves unbounded): no maxLength, maxItems or
 * minLength is asked of it.
 */
function unboundedOnPurpose(node: SourceMap): boolean {
  const comment = entryOf(node, "$comment")?.value;
  return (
    comment?.kind === "scalar" && typeof comment.value === "string" && /^unbounded\b/.test(comment.value)
  );
}

function typesOf(node: SourceMap): Set<string> {
  const t = entryOf(node, "type")?.value;
  const out = new Set<string>();
  if (t?.kind === "scalar" && typeof t.value === "string") out.add(t.value);
  if (t?.kind === "seq")
    for (const item of t.items)
      if (item.kind === "scalar" && typeof item.value === "string") out.add(item.value);
  return out;
}

/** Follows local `#/$defs/x` (or `#/definitions/x`) references: the tool's own definitions, then the shared ones. */
function resolveRef(node: SourceNode, scope: SchemaScope): SourceNode | undefined {
  let current: SourceNode | undefined = node;
  for (let hops = 0; hops < 8 && current?.kind === "map"; hops++) {
    const ref = entryOf(current, "$ref")?.value;
    if (ref === undefined) return current;
    if (ref.kind !== "scalar" || typeof ref.value !== "string") return undefined;
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref.value);
    if (m === null) return undefined;
    const name = decodeURIComponent(m[2]!).replace(/~1/g, "/").replace(/~0/g, "~");
    const local = defsOf(scope.root, m[1]!);
    current =
      (local && entryOf(local, name)?.value) ??
      (m[1] === "$defs" && scope.shared?.kind === "map" ? entryOf(scope.shared, name)?.value : undefined);
  }
  return current;
}

function defsOf(root: SourceNode, key: string): SourceMap | undefined {
  if (root.kind !== "map") return undefined;
  const defs = entryOf(root, key)?.value;
  return defs?.kind === "map" ? defs : undefined;
}

function scalarIs(node: SourceNode, value: boolean): boolean {
  return node.kind === "scalar" && node.value === value;
}

/**
 * A tree for a schema that has no source (one generated from v1 constraints). Its keywords are not in the
 * file, so every finding points at the entry it came from.
 */
function plainToNode(value: unknown, at: SourceRef): SourceNode {
  if (Array.isArray(value)) return { kind: "seq", items: value.map((v) => plainToNode(v, at)), at };
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).map((key) => ({
      key,
      keyAt: at,
      value: plainToNode((value as Record<string, unknown>)[key], at),
    }));
    return { kind: "map", entries, at };
  }
  const scalar =
    typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : null;
  return { kind: "scalar", value: scalar, raw: String(scalar), quoted: false, at };
}

function warn(out: Diagnostic[], code: ToolgateCode, at: SourceRef, message: string, hint?: string): void {
  out.push(diagnosticAt("warning", code, at, message, hint));
}
