import type { ToolgateCode } from "../engine/model/codes.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { appendAll, hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import type { Policy, ToolPin, ToolSchemaEntry } from "../engine/model/policy.js";
import { readItemSection } from "./policyItems.js";
import { readEnforcement, readLimits } from "./policySettings.js";
import { readToolPins } from "./policyPins.js";
import { PolicyReader } from "./policyReader.js";
import { readSchemas, type SchemasSection } from "./policySchemas.js";
import { readTools } from "./policyTools.js";
import { IGNORED_TOP_LEVEL, refuseUnsupported, UNSUPPORTED_TOP_LEVEL, without } from "./policyUnsupported.js";
import { readV1Constraints } from "./policyV1.js";
import { readVersion, warnDeprecations } from "./policyVersion.js";
import { entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import type { SourceMap } from "../engine/model/source.js";

export { SUPPORTED_VERSIONS } from "./policyVersion.js";

export interface PolicyLoadResult {
  /** `null` whenever `diagnostics` holds an error: callers refuse to start (fail closed). */
  policy: Policy | null;
  diagnostics: Diagnostic[];
}

const TOP_LEVEL_FIELDS = [
  "version",
  "name",
  "description",
  "tools",
  "allow",
  "deny",
  "schemas",
  "constraints",
  "enforcement",
  "limits",
  "tool_pins",
  "resources",
  "prompts",
] as const;

/** Reads a policy file. The only I/O of policy loading; everything after the read is {@link loadPolicyText}. */
export function loadPolicyFile(path: string): PolicyLoadResult {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    // A relative path is read against the current directory, which a host may set anywhere: say which.
    const tried = isAbsolute(path) ? "" : ` (${resolve(path)})`;
    return {
      policy: null,
      diagnostics: [fileError("E_POLICY_READ", path, `cannot read policy file '${path}'${tried}: ${reason}`)],
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return {
      policy: null,
      diagnostics: [fileError("E_POLICY_ENCODING", path, `policy file '${path}' is not valid UTF-8`)],
    };
  }
  return parsePolicy(path, text, sha256Hex(bytes));
}

/** Parses and validates policy text (YAML or JSON). Pure. `file` is used in messages only. */
export function loadPolicyText(file: string, text: string): PolicyLoadResult {
  return parsePolicy(file, text, sha256Hex(Buffer.from(text, "utf8")));
}

function parsePolicy(file: string, text: string, digest: string): PolicyLoadResult {
  const parsed = parseYamlSource(file, text);
  if (hasErrors(parsed.diagnostics)) return { policy: null, diagnostics: parsed.diagnostics };
  const root = parsed.root;
  if (root === null || (root.kind === "scalar" && root.value === null)) {
    return {
      policy: null,
      diagnostics: [
        fileError("E_POLICY_EMPTY", file, "the policy file is empty", 'start with version: "2.0"'),
      ],
    };
  }
  const r = new PolicyReader();
  appendAll(r.diagnostics, parsed.diagnostics);
  if (root.kind !== "map") {
    r.typeError(root, "a map of policy fields");
    return { policy: null, diagnostics: r.diagnostics };
  }

  r.diagnostics.push(
    ...unknownKeyWarnings(
      without(root, UNSUPPORTED_TOP_LEVEL, IGNORED_TOP_LEVEL),
      TOP_LEVEL_FIELDS,
      "the policy",
    ),
  );
  refuseUnsupported(r, root, UNSUPPORTED_TOP_LEVEL);
  for (const e of root.entries) {
    const why = Object.hasOwn(IGNORED_TOP_LEVEL, e.key) ? IGNORED_TOP_LEVEL[e.key] : undefined;
    if (why !== undefined) r.warn("W_UNSUPPORTED_FIELD", e.keyAt, `'${e.key}' is ignored: ${why}`);
  }

  const version = readVersion(r, root);
  const name = optionalString(r, root, "name");
  const description = optionalString(r, root, "description");

  const tools = readTools(r, root);
  const rootAllowEntry = entryOf(root, "allow");
  const rootDenyEntry = entryOf(root, "deny");
  const rootAllow = rootAllowEntry && r.patternList(rootAllowEntry.value, { allowNull: false });
  const rootDeny = rootDenyEntry && r.patternList(rootDenyEntry.value, { allowNull: true });
  // Root entries follow the tools.* entries, the order assay merges them in.
  const allow =
    tools.allow === undefined && rootAllowEntry === undefined
      ? null
      : [...(tools.allow ?? []), ...(rootAllow ?? [])];
  const deny = [...(tools.deny ?? []), ...(rootDeny ?? [])];

  const schemasMap = r.map(entryOf(root, "schemas")?.value, "tool names to JSON Schemas");
  const schemas: SchemasSection = schemasMap ? readSchemas(r, schemasMap) : { tools: [], sharedDefs: {} };
  const constraintsEntry = entryOf(root, "constraints");
  const v1Schemas = constraintsEntry ? readV1Constraints(r, constraintsEntry.value) : [];
  const schemaEntries = mergeSchemas(r, schemas.tools, v1Schemas);

  const enforcement = readEnforcement(r, root);
  const limits = readLimits(r, root);
  const pinsMap = r.map(entryOf(root, "tool_pins")?.value, "pins");
  const toolPins: ToolPin[] = pinsMap ? readToolPins(r, pinsMap) : [];
  const resources = readItemSection(r, root, "resources");
  const prompts = readItemSection(r, root, "prompts");

  const legacy = {
    rootAllowDeny: rootAllowEntry !== undefined || rootDenyEntry !== undefined,
    constraints: constraintsEntry !== undefined,
  };
  warnDeprecations(r, root, version, legacy, [rootAllowEntry, rootDenyEntry]);

  const diagnostics = sortByPosition(r.diagnostics);
  if (hasErrors(diagnostics) || version === undefined) return { policy: null, diagnostics };

  const policy: Policy = {
    file,
    sourceVersion: version,
    tools: {
      allow,
      deny,
      approvalRequired: tools.approvalRequired ?? [],
      restrictScope: tools.restrictScope ?? [],
      redactArgs: tools.redactArgs ?? [],
    },
    schemas: schemaRecord(schemaEntries),
    sharedDefs: schemas.sharedDefs,
    enforcement,
    limits,
    toolPins,
    digest,
  };
  if (resources !== undefined) policy.resources = resources;
  if (prompts !== undefined) policy.prompts = prompts;
  if (name !== undefined) policy.name = name;
  if (description !== undefined) policy.description = description;
  if (tools.restrictScopeContract !== undefined)
    policy.tools.restrictScopeContract = tools.restrictScopeContract;
  if (tools.redactArgsContract !== undefined) policy.tools.redactArgsContract = tools.redactArgsContract;
  if (schemas.sharedDefsAt !== undefined) policy.sharedDefsAt = schemas.sharedDefsAt;
  if (schemas.sharedDefsSource !== undefined) policy.sharedDefsSource = schemas.sharedDefsSource;
  if (legacy.rootAllowDeny || legacy.constraints) policy.legacy = legacy;
  return { policy, diagnostics };
}
/** Explicit schemas and v1 constraints for the same tool would each silently win somewhere: refuse. */
function mergeSchemas(
  r: PolicyReader,
  explicit: ToolSchemaEntry[],
  fromV1: ToolSchemaEntry[],
): ToolSchemaEntry[] {
  const byTool = new Map(explicit.map((e) => [e.tool, e]));
  const out = [...explicit];
  for (const entry of fromV1) {
    const other = byTool.get(entry.tool);
    if (other !== undefined) {
      r.error(
        "E_POLICY_SCHEMA_CONFLICT",
        entry.at,
        `'${entry.tool}' has both v1 constraints and a schema (schemas.${entry.tool}, line ${other.at.line})`,
        "keep one: move the constraint into the schema",
      );
      continue;
    }
    out.push(entry);
  }
  return out;
}

/** No prototype: a lookup by an arbitrary tool name (`toString`, `__proto__`) finds only real entries. */
function schemaRecord(entries: ToolSchemaEntry[]): Record<string, ToolSchemaEntry> {
  const out = Object.create(null) as Record<string, ToolSchemaEntry>;
  for (const e of entries) out[e.tool] = e;
  return out;
}
function optionalString(r: PolicyReader, map: SourceMap, key: string): string | undefined {
  const e = entryOf(map, key);
  if (e === undefined || (e.value.kind === "scalar" && e.value.value === null)) return undefined;
  return r.string(e.value);
}

function sortByPosition(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.line - b.d.line || a.d.column - b.d.column || a.i - b.i)
    .map((x) => x.d);
}

function fileError(code: ToolgateCode, file: string, message: string, hint?: string): Diagnostic {
  const d: Diagnostic = { severity: "error", code, message, file, line: 0, column: 0, path: "" };
  if (hint !== undefined) d.hint = hint;
  return d;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
