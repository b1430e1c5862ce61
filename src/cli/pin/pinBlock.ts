import { pinForTool, type ToolPinEntry } from "../../engine/pins/exactHash.js";
import type { ToolDefinition } from "../../engine/model/gate.js";

/**
 * The `tool_pins` block `toolgate pin` prints: one entry per tool, keyed by the tool's name, in code-unit
 * order so that two runs over the same catalog print the same bytes (and a diff shows only what changed).
 */

export interface PinnedCatalog {
  /** Sorted by key. */
  pins: Array<[string, ToolPinEntry]>;
}

/** Throws what pinForTool throws (a schema that cannot be hashed, raw text that disagrees with the tool). */
export function pinCatalog(
  tools: readonly ToolDefinition[],
  rawSchemas: ReadonlyMap<string, string>,
  serverId: string,
): PinnedCatalog {
  const pins = tools.map((tool): [string, ToolPinEntry] => [
    tool.name,
    pinForTool(tool, rawSchemas.get(tool.name), serverId),
  ]);
  pins.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { pins };
}

/**
 * YAML that a policy file can take as is. Every key and value is written as a JSON string, which is also a
 * YAML double-quoted scalar: a tool named `yes`, `1.0`, `a: b` or `#x` stays a string, and hashes made only
 * of digits do not become numbers.
 */
export function renderPinsYaml(catalog: PinnedCatalog, header: readonly string[]): string {
  const out = header.map((line) => `# ${line}`);
  if (catalog.pins.length === 0) {
    out.push("tool_pins: {}");
    return out.join("\n") + "\n";
  }
  out.push("tool_pins:");
  for (const [key, pin] of catalog.pins) {
    out.push(`  ${JSON.stringify(key)}:`);
    for (const [field, value] of fieldsOf(pin)) out.push(`    ${field}: ${JSON.stringify(value)}`);
  }
  return out.join("\n") + "\n";
}

export function renderPinsJson(catalog: PinnedCatalog): string {
  const block: Record<string, Record<string, string>> = {};
  for (const [key, pin] of catalog.pins) {
    const fields: Record<string, string> = {};
    for (const [field, value] of fieldsOf(pin)) fields[field] = value;
    // defineProperty: a tool named `__proto__` is an ordinary key here too.
    Object.defineProperty(block, key, {
      value: fields,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return JSON.stringify({ tool_pins: block }, null, 2) + "\n";
}

/** The entry's fields in the spec's order, toolgate's extension last. */
function fieldsOf(pin: ToolPinEntry): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  if (pin.server_id !== undefined) fields.push(["server_id", pin.server_id]);
  fields.push(["tool_name", pin.tool_name], ["schema_hash", pin.schema_hash], ["meta_hash", pin.meta_hash]);
  if (pin.exact_schema_hash !== undefined) fields.push(["exact_schema_hash", pin.exact_schema_hash]);
  return fields;
}
