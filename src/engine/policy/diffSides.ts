import type { PatternEntry, Policy, ToolPin } from "../model/policy.js";
import type { ToolGate } from "../model/gate.js";

/**
 * What each policy says of one tool, per kind of change, as `policy diff` prints it (`old`/`new` of a
 * change; docs/changing-policies.md lists the keys), and when two such sides say the same.
 */

export function pinSide(pin: ToolPin): Record<string, unknown> {
  return {
    key: pin.key,
    ...(pin.serverId === undefined ? {} : { server_id: pin.serverId }),
    schema_hash: pin.schemaHash,
    meta_hash: pin.metaHash,
    ...(pin.exactSchemaHash === undefined ? {} : { exact_schema_hash: pin.exactSchemaHash }),
    file: pin.at.file,
    line: pin.at.line,
  };
}

export function entrySide(entry: PatternEntry | undefined): Record<string, unknown> | null {
  return entry === undefined ? null : { pattern: entry.pattern, file: entry.at.file, line: entry.at.line };
}

export function schemaSide(policy: Policy, tool: string): Record<string, unknown> {
  const entry = Object.hasOwn(policy.schemas, tool) ? policy.schemas[tool]! : undefined;
  if (entry === undefined)
    return { schema: null, unconstrained_tools: policy.enforcement.unconstrainedTools };
  // Shared definitions are part of the schema only when it refers to them.
  const refers = JSON.stringify(entry.schema).includes('"#/$defs/');
  return {
    schema: entry.schema,
    ...(refers ? { shared_defs: policy.sharedDefs } : {}),
    file: entry.at.file,
    line: entry.at.line,
  };
}

export function scopeSide(policy: Policy, entry: PatternEntry | undefined): Record<string, unknown> | null {
  if (entry === undefined) return null;
  const c = policy.tools.restrictScopeContract;
  return {
    pattern: entry.pattern,
    file: entry.at.file,
    line: entry.at.line,
    contract:
      c === undefined
        ? null
        : {
            scope_type: c.scopeType,
            scope_value: c.scopeValues ?? c.scopeValue,
            scope_match_mode: c.scopeMatchMode,
            ...(c.pathArguments === undefined ? {} : { path_arguments: c.pathArguments }),
            ...(c.realpath === undefined ? {} : { realpath: c.realpath }),
          },
  };
}

export function redactionSide(r: ReturnType<NonNullable<ToolGate["redaction"]>> | null): unknown {
  if (r === null) return null;
  return {
    mode: r.redactionMode,
    scope: r.redactionScope,
    ...(r.fields === undefined ? {} : { fields: r.fields }),
  };
}

/**
 * Equal for a reader: where a rule is written (file, line) and which entry matched (pattern) make no
 * change, only what is said. Dropped at the top level only: a schema may name a property `pattern`.
 */
export function same(a: unknown, b: unknown): boolean {
  return stable(topLevel(a)) === stable(topLevel(b));
}

function topLevel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(topLevel);
  if (typeof v !== "object" || v === null) return v;
  const { file: _file, line: _line, pattern: _pattern, ...rest } = v as Record<string, unknown>;
  return rest;
}

/** JSON with object keys sorted, so key order in a file makes no change. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (typeof v !== "object" || v === null) return JSON.stringify(v) ?? "null";
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable(o[k])}`)
    .join(",")}}`;
}
