import type { ToolSchemaEntry } from "../engine/model/policy.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import { isNull, type PolicyReader } from "./policyReader.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";
import { appendAll } from "../engine/model/diagnostics.js";

/**
 * v1 `constraints`, in either shape assay reads:
 *
 *   constraints:                      constraints:
 *     - tool: read_file                 read_file:
 *       params:                           path: "^/workspace/.*"        # shorthand for matches
 *         path: { matches: "^/w.*" }      mode: { matches: "^r$" }
 *
 * v1 has one operator, `matches` (a regular expression the string argument must contain a match of).
 * Each constrained parameter becomes a required string property with that `pattern` and `minLength: 1`;
 * parameters the constraint does not name stay allowed (`additionalProperties: true`), as v1 did. Any
 * other operator is an error: assay ignores it, which would leave the parameter unchecked.
 */
export function readV1Constraints(r: PolicyReader, node: SourceNode): ToolSchemaEntry[] {
  if (isNull(node)) return [];
  const rules: { tool: string; at: SourceRef; params: SourceMap | undefined }[] = [];
  if (node.kind === "seq") {
    for (const item of node.items) {
      if (item.kind !== "map") {
        r.typeError(item, "a constraint (a map with 'tool' and 'params')");
        continue;
      }
      appendAll(r.diagnostics, unknownKeyWarnings(item, ["tool", "params"], "a v1 constraint"));
      const toolNode = r.required(item, "tool");
      const tool = toolNode && r.nonEmptyString(toolNode, "a tool name");
      const paramsNode = r.required(item, "params");
      const params = paramsNode && r.map(paramsNode, "parameter constraints");
      if (paramsNode !== undefined && isNull(paramsNode)) {
        r.typeError(paramsNode, "a map of parameter constraints");
      }
      if (tool !== undefined) rules.push({ tool, at: item.at, params });
    }
  } else if (node.kind === "map") {
    for (const entry of node.entries) {
      const params = r.map(entry.value, "parameter constraints");
      if (isNull(entry.value)) r.typeError(entry.value, "a map of parameter constraints");
      rules.push({ tool: entry.key, at: entry.keyAt, params });
    }
  } else {
    r.typeError(node, "a list of constraints or a map of tool name to parameter constraints");
    return [];
  }

  const out: ToolSchemaEntry[] = [];
  const seen = new Map<string, SourceRef>();
  for (const rule of rules) {
    const earlier = seen.get(rule.tool);
    if (earlier !== undefined) {
      r.error(
        "E_POLICY_SCHEMA_CONFLICT",
        rule.at,
        `'${rule.tool}' already has constraints at line ${earlier.line}`,
        "merge the two entries into one",
      );
      continue;
    }
    seen.set(rule.tool, rule.at);
    if (rule.params === undefined) continue;
    const patterns = readParams(r, rule.params);
    if (patterns === undefined) continue;
    out.push({ tool: rule.tool, schema: v1ConstraintSchema(patterns), at: rule.at, fromV1Constraints: true });
  }
  return out;
}

/** The JSON Schema a v1 constraint stands for. Deterministic: properties and `required` sorted by name. */
export function v1ConstraintSchema(patterns: ReadonlyMap<string, string>): Record<string, unknown> {
  const names = [...patterns.keys()].sort();
  const properties: Record<string, unknown> = {};
  for (const name of names) {
    Object.defineProperty(properties, name, {
      value: { type: "string", pattern: patterns.get(name), minLength: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { type: "object", additionalProperties: true, properties, required: names };
}

function readParams(r: PolicyReader, params: SourceMap): Map<string, string> | undefined {
  const out = new Map<string, string>();
  let ok = true;
  for (const entry of params.entries) {
    const value = entry.value;
    let patternNode: SourceNode | undefined;
    if (value.kind === "scalar" && typeof value.value === "string") {
      patternNode = value;
    } else if (value.kind === "map") {
      for (const op of value.entries) {
        if (op.key === "matches") continue;
        ok = false;
        r.error(
          "E_POLICY_V1_OPERATOR",
          op.keyAt,
          `v1 constraints support only 'matches'; '${op.key}' would leave '${entry.key}' unchecked`,
          "express it in a v2 JSON Schema under schemas: (enum, minimum, maximum, const …)",
        );
      }
      patternNode = entryOf(value, "matches")?.value;
      if (patternNode === undefined && value.entries.length === 0) {
        r.warn(
          "W_V1_PARAM_UNCONSTRAINED",
          entry.keyAt,
          `'${entry.key}' has no 'matches' and constrains nothing`,
        );
        continue;
      }
    } else {
      ok = false;
      r.typeError(value, "a regular expression (a string) or a map with 'matches'");
      continue;
    }
    if (patternNode === undefined) continue;
    const pattern = r.string(patternNode, "a regular expression (a string)");
    if (pattern === undefined) {
      ok = false;
      continue;
    }
    const problem = regexProblem(pattern);
    if (problem !== undefined) {
      ok = false;
      r.error(
        "E_POLICY_V1_PATTERN",
        patternNode.at,
        `invalid regular expression: ${problem}`,
        "patterns use JavaScript (ECMAScript, unicode mode) syntax",
      );
      continue;
    }
    out.set(entry.key, pattern);
  }
  return ok ? out : undefined;
}

/** Schemas validate `pattern` with unicode-mode JavaScript regular expressions; check the same way. */
function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
