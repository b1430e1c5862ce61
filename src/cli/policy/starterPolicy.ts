import { stringify } from "yaml";
import type { ToolDefinition } from "../../engine/model/gate.js";
import { isJsonObject, type JsonObject } from "../../engine/rpc/jsonRpc.js";
import { renderPinsYaml, type PinnedCatalog } from "../pin/pinBlock.js";

/** Bounds a starter schema gives strings and lists that have none (the spec recommends bounds). */
export const STARTER_MAX_LENGTH = 4096;
export const STARTER_MAX_ITEMS = 256;

/** How a tool is treated, from its annotations, and why (said in the file's comments). */
export type StarterKind = "read-only" | "approval" | "write";

export function starterKind(tool: ToolDefinition): { kind: StarterKind; why: string } {
  const hints = isJsonObject(tool.annotations) ? tool.annotations : {};
  if (hints.readOnlyHint === true)
    return { kind: "read-only", why: "readOnlyHint: the server says it changes nothing" };
  if (hints.destructiveHint === false) {
    return { kind: "write", why: "destructiveHint: false: it may change things but destroys nothing" };
  }
  return {
    kind: "approval",
    why:
      hints.destructiveHint === true
        ? "destructiveHint: it may destroy things, so a person approves each call"
        : "no readOnlyHint: MCP assumes such a tool may destroy things, so a person approves each call",
  };
}

/**
 * A tool's inputSchema, tightened as a starting point: no undeclared arguments (`additionalProperties:
 * false` unless the schema says otherwise), an explicit `required`, a `minLength` on required strings and
 * a `maxLength` on every string, a `maxItems` on every list. Every other keyword is kept as the server
 * wrote it. Pure.
 */
export function tightenSchema(schema: unknown, requiredHere = false): unknown {
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = { ...schema };
  const type = schema.type;
  if (type === "object" || isJsonObject(schema.properties)) {
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required)
      ? schema.required.filter((r) => typeof r === "string")
      : [];
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, tightenSchema(value, required.includes(key))]),
    );
    out.required = required;
    if (out.additionalProperties === undefined) out.additionalProperties = false;
  }
  if (type === "string" && schema.enum === undefined && schema.const === undefined) {
    if (out.maxLength === undefined) out.maxLength = STARTER_MAX_LENGTH;
    if (requiredHere && out.minLength === undefined) out.minLength = 1;
  }
  if (type === "array") {
    if (out.maxItems === undefined) out.maxItems = STARTER_MAX_ITEMS;
    if (schema.items !== undefined) out.items = tightenSchema(schema.items);
  }
  return out;
}

export interface StarterInput {
  /** How the server named itself (shown in the header). */
  server: string;
  tools: readonly ToolDefinition[];
  pins: PinnedCatalog;
}

/**
 * A starter policy file from a server's live catalog, with a comment for every choice: read-only tools
 * allowed; tools that may destroy things allowed under `approval_required`; a schema per tool tightened
 * from its inputSchema; a pin per tool; and enforcement that refuses what is not covered (tools without a
 * schema, tools the server adds later). Pure; the text loads as a v2 policy file.
 */
export function starterPolicyYaml(input: StarterInput): string {
  const sorted = [...input.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const kinds = sorted.map((tool) => ({ tool, ...starterKind(tool) }));
  const q = (s: string) => JSON.stringify(s);
  const lines: string[] = [
    `# toolgate policy init: a starter policy for ${input.server} (${sorted.length} tool${sorted.length === 1 ? "" : "s"}), from its live catalog.`,
    "# Every choice below is a starting point: read each comment, then narrow the schemas to what you allow.",
    'version: "2.0"',
    "tools:",
  ];
  if (sorted.length === 0) {
    lines.push("  allow: []");
  } else {
    lines.push("  allow:");
    for (const { tool, why } of kinds) lines.push(`    - ${q(tool.name)} # ${why}`);
  }
  const asked = kinds.filter((k) => k.kind === "approval");
  if (asked.length > 0) {
    lines.push("  # A person approves each call of these (MCP elicitation, or a signed artifact).");
    lines.push("  approval_required:");
    for (const { tool } of asked) lines.push(`    - ${q(tool.name)}`);
  }
  if (sorted.length > 0) {
    lines.push(
      "# Each tool's arguments, tightened from its inputSchema: no undeclared arguments, bounded strings and lists.",
      "schemas:",
    );
    for (const tool of sorted) {
      const schema = tightenSchema(tool.inputSchema ?? { type: "object", properties: {} });
      lines.push(`  ${q(tool.name)}:`);
      const body = stringify(schema, { lineWidth: 0 }).trimEnd();
      for (const line of body.split("\n")) lines.push(`    ${line}`);
    }
  }
  lines.push(
    renderPinsYaml(input.pins, [
      "What each tool looked like when this file was made: a server that changes one later has it withheld.",
    ]).trimEnd(),
  );
  lines.push(
    "enforcement:",
    "  unconstrained_tools: deny # every allowed tool has a schema above; a tool without one is refused",
    "  unpinned_tools: deny # a tool the server adds later stays withheld until you review and pin it",
  );
  return lines.join("\n") + "\n";
}
