import type { ToolPin } from "../engine/model/policy.js";
import type { PolicyReader } from "./policyReader.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";
import type { SourceMap, SourceNode } from "../engine/model/source.js";
import { appendAll } from "../engine/model/diagnostics.js";

const PIN_FIELDS = ["server_id", "tool_name", "schema_hash", "meta_hash", "exact_schema_hash"] as const;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** `tool_pins`: key → { server_id?, tool_name, schema_hash, meta_hash, exact_schema_hash? }. */
export function readToolPins(r: PolicyReader, pins: SourceMap): ToolPin[] {
  const out: ToolPin[] = [];
  for (const entry of pins.entries) {
    const map = r.map(entry.value, "pin fields");
    if (map === undefined) {
      if (entry.value.kind === "scalar" && entry.value.value === null) {
        r.error("E_POLICY_FIELD_TYPE", entry.value.at, "expected a map of pin fields, got an empty value");
      }
      continue;
    }
    appendAll(r.diagnostics, unknownKeyWarnings(map, PIN_FIELDS, `tool_pins.${entry.key}`));
    const toolNameNode = r.required(map, "tool_name");
    const toolName = toolNameNode && r.nonEmptyString(toolNameNode, "a tool name");
    const schemaHashNode = r.required(map, "schema_hash");
    const schemaHash = schemaHashNode && readHash(r, schemaHashNode);
    const metaHashNode = r.required(map, "meta_hash");
    const metaHash = metaHashNode && readHash(r, metaHashNode);
    const serverEntry = entryOf(map, "server_id");
    const serverId = serverEntry && r.nonEmptyString(serverEntry.value, "a server id");
    const exactEntry = entryOf(map, "exact_schema_hash");
    const exactSchemaHash = exactEntry && readHash(r, exactEntry.value);
    if (toolName === undefined || schemaHash === undefined || metaHash === undefined) continue;
    if ((serverEntry && serverId === undefined) || (exactEntry && exactSchemaHash === undefined)) continue;
    const pin: ToolPin = { key: entry.key, toolName, schemaHash, metaHash, at: entry.keyAt };
    if (serverId !== undefined) pin.serverId = serverId;
    if (exactSchemaHash !== undefined) pin.exactSchemaHash = exactSchemaHash;
    out.push(pin);
  }
  return out;
}

/**
 * A hex SHA-256. An unquoted all-digit hash is a YAML number whose value has lost digits, so the text as
 * written is what counts.
 */
function readHash(r: PolicyReader, node: SourceNode): string | undefined {
  let text: string | undefined;
  if (node.kind === "scalar" && typeof node.value === "string") text = node.value;
  else if (node.kind === "scalar" && typeof node.value === "number" && !node.quoted) text = node.raw;
  if (text !== undefined && SHA256_HEX.test(text)) return text;
  const field = node.at.path.split(".").pop() ?? "hash";
  const got =
    text === undefined
      ? "a non-string value"
      : text.length !== 64
        ? `${text.length} characters`
        : /[A-F]/.test(text)
          ? "uppercase letters"
          : "characters outside 0-9 and a-f";
  const hint =
    text !== undefined && /^[0-9a-fA-F]{64}$/.test(text)
      ? "write the hash in lowercase"
      : "the full 64-character lowercase hex SHA-256 (toolgate pin prints it)";
  r.error(
    "E_POLICY_PIN_HASH",
    node.at,
    `${field} must be exactly 64 lowercase hexadecimal characters (got ${got})`,
    hint,
  );
  return undefined;
}
