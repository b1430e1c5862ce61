import type { ToolSchemaEntry } from "../engine/model/policy.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import type { PolicyReader } from "./policyReader.js";
import { toPlainExact } from "./sourceTree.js";

export interface SchemasSection {
  tools: ToolSchemaEntry[];
  sharedDefs: Record<string, unknown>;
  sharedDefsAt?: SourceRef;
  sharedDefsSource?: SourceNode;
}

/**
 * `schemas:` maps exact tool names to JSON Schemas for their argument object; the key `$defs` (and only
 * that key) holds definitions shared by all of them. Schemas are checked for shape here; compiling them
 * (and refusing remote `$ref`) is the schema module's job.
 */
export function readSchemas(r: PolicyReader, map: SourceMap): SchemasSection {
  const section: SchemasSection = { tools: [], sharedDefs: {} };
  for (const entry of map.entries) {
    const node = entry.value;
    if (entry.key === "$defs") {
      if (node.kind !== "map") {
        r.typeError(node, "a map of shared definitions");
        continue;
      }
      section.sharedDefs = toPlainExact(node) as Record<string, unknown>;
      section.sharedDefsAt = entry.keyAt;
      section.sharedDefsSource = node;
      continue;
    }
    const isBooleanSchema = node.kind === "scalar" && typeof node.value === "boolean";
    if (node.kind !== "map" && !isBooleanSchema) {
      r.typeError(node, `a JSON Schema for the arguments of '${entry.key}' (a map)`);
      continue;
    }
    section.tools.push({
      tool: entry.key,
      schema: toPlainExact(node),
      at: entry.keyAt,
      fromV1Constraints: false,
      source: node,
    });
  }
  return section;
}
