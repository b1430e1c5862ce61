import type { ToolgateCode } from "../engine/model/codes.js";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { appendAll, hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { defaultRedactContract, readRedactContract, readScopeContract } from "./policyContracts.js";
import type {
  PatternEntry,
  Policy,
  RedactContract,
  ScopeContract,
  ToolPin,
  ToolSchemaEntry,
} from "../engine/model/policy.js";
import { readItemSection } from "./policyItems.js";
import { readEnforcement, readLimits } from "./policySettings.js";
import { readToolPins } from "./policyPins.js";
import { PolicyReader } from "./policyReader.js";
import { readSchemas, type SchemasSection } from "./policySchemas.js";
import { readV1Constraints } from "./policyV1.js";
import { entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import type { SourceEntry, SourceMap } from "../engine/model/source.js";

export interface PolicyLoadResult {
  /** `null` whenever `diagnostics` holds an error: callers refuse to start (fail closed). */
  policy: Policy | null;
  diagnostics: Diagnostic[];
}

export const SUPPORTED_VERSIONS = ["2.0", "1.0"] as const;

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

const TOOLS_FIELDS = [
  "allow",
  "deny",
  "approval_required",
  "restrict_scope",
  "redact_args",
  "restrict_scope_contract",
  "redact_args_contract",
] as const;

/**
 * Fields of the assay format that toolgate does not enforce. Each of them denies, constrains or narrows
 * something in assay, so running without it would admit more than the author wrote: refuse the policy.
 */
const UNSUPPORTED_TOP_LEVEL: Record<string, string> = {
  tool_classes: "name the tools in tools.allow / tools.deny instead of classing them",
  signatures: "use tool_pins (meta_hash pins the description) instead",
  runtime_monitor: "remove it; toolgate has no runtime monitor",
  kill_switch: "remove it; toolgate has no kill switch",
};
const UNSUPPORTED_TOOLS: Record<string, string> = {
  allow_classes: "list the tools by name in tools.allow",
  deny_classes: "list the tools by name in tools.deny",
  approval_required_classes: "list the tools by name in tools.approval_required",
  restrict_scope_classes: "list the tools by name in tools.restrict_scope",
  redact_args_classes: "list the tools by name in tools.redact_args",
};
/** assay fields that do not affect any decision: ignored with a warning. */
const IGNORED_TOP_LEVEL: Record<string, string> = {
  discovery: "assay's server discovery settings do not affect tool decisions",
};

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

function readVersion(r: PolicyReader, root: SourceMap): Policy["sourceVersion"] | undefined {
  const entry = entryOf(root, "version");
  if (entry === undefined) {
    r.error(
      "E_POLICY_VERSION",
      { ...root.at, path: "version" },
      "missing version",
      'add version: "2.0" as the first line',
    );
    return undefined;
  }
  const node = entry.value;
  if (node.kind === "scalar" && typeof node.value === "number") {
    const spelled = Number.isInteger(node.value) ? `${node.value}.0` : node.raw;
    r.error(
      "E_POLICY_VERSION",
      node.at,
      `version must be a quoted string, got the number ${node.raw}`,
      `write version: "${spelled}"`,
    );
    return undefined;
  }
  if (node.kind !== "scalar" || typeof node.value !== "string") {
    r.typeError(node, 'a version string ("2.0" or "1.0")');
    return undefined;
  }
  const value = node.value;
  if ((SUPPORTED_VERSIONS as readonly string[]).includes(value)) return value as Policy["sourceVersion"];
  const near = /^v?([12])(\.0+)?$/.exec(value.trim());
  r.error(
    "E_POLICY_VERSION",
    node.at,
    `unsupported version "${value}"; supported versions: "2.0", "1.0"`,
    near ? `write version: "${near[1]}.0"` : undefined,
  );
  return undefined;
}

interface ToolsSection {
  allow?: PatternEntry[];
  deny?: PatternEntry[];
  approvalRequired?: PatternEntry[];
  restrictScope?: PatternEntry[];
  redactArgs?: PatternEntry[];
  restrictScopeContract?: ScopeContract;
  redactArgsContract?: RedactContract;
}

function readTools(r: PolicyReader, root: SourceMap): ToolsSection {
  const map = r.map(entryOf(root, "tools")?.value, "tool rules");
  const out: ToolsSection = {};
  if (map === undefined) return out;
  appendAll(r.diagnostics, unknownKeyWarnings(without(map, UNSUPPORTED_TOOLS), TOOLS_FIELDS, "tools"));
  refuseUnsupported(r, map, UNSUPPORTED_TOOLS);

  const list = (key: string, allowNull: boolean) => {
    const e = entryOf(map, key);
    return e && r.patternList(e.value, { allowNull });
  };
  out.allow = list("allow", false);
  out.deny = list("deny", true);
  out.approvalRequired = list("approval_required", true);
  out.restrictScope = list("restrict_scope", true);
  out.redactArgs = list("redact_args", true);

  const scopeEntry = entryOf(map, "restrict_scope_contract");
  const scopeMap = scopeEntry && r.map(scopeEntry.value, "scope contract fields");
  if (scopeMap) out.restrictScopeContract = readScopeContract(r, scopeMap);
  const redactEntry = entryOf(map, "redact_args_contract");
  const redactMap = redactEntry && r.map(redactEntry.value, "redaction contract fields");
  if (redactMap) out.redactArgsContract = readRedactContract(r, redactMap);

  const scopeList = entryOf(map, "restrict_scope");
  if (scopeList && (out.restrictScope?.length ?? 0) > 0 && scopeEntry === undefined) {
    r.error(
      "E_POLICY_CONTRACT_MISSING",
      scopeList.keyAt,
      "restrict_scope lists tools but tools.restrict_scope_contract is missing, so there is no scope to enforce",
      "add restrict_scope_contract with scope_type, scope_value and scope_match_mode",
    );
  }
  if (scopeEntry && (out.restrictScope?.length ?? 0) === 0) {
    r.warn(
      "W_CONTRACT_UNUSED",
      scopeEntry.keyAt,
      "restrict_scope_contract applies to no tool: tools.restrict_scope is empty or missing",
    );
  }
  const redactList = entryOf(map, "redact_args");
  if (redactList && (out.redactArgs?.length ?? 0) > 0 && redactEntry === undefined) {
    out.redactArgsContract = defaultRedactContract(redactList.keyAt);
    r.warn(
      "W_CONTRACT_DEFAULTED",
      redactList.keyAt,
      "redact_args lists tools without tools.redact_args_contract: every string argument of those tools is masked in what toolgate records",
      "add redact_args_contract (redaction_target: args, redaction_mode, redaction_scope) to choose",
    );
  }
  if (redactEntry && (out.redactArgs?.length ?? 0) === 0) {
    r.warn(
      "W_CONTRACT_UNUSED",
      redactEntry.keyAt,
      "redact_args_contract applies to no tool: tools.redact_args is empty or missing",
    );
  }
  return out;
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

/** `map` without the keys that get their own diagnostic, so the unknown-field hint lists only real fields. */
function without(map: SourceMap, ...handled: Record<string, string>[]): SourceMap {
  return { ...map, entries: map.entries.filter((e) => !handled.some((h) => Object.hasOwn(h, e.key))) };
}

function refuseUnsupported(r: PolicyReader, map: SourceMap, unsupported: Record<string, string>): void {
  for (const e of map.entries) {
    if (!Object.hasOwn(unsupported, e.key)) continue;
    const hint = unsupported[e.key];
    r.error(
      "E_POLICY_UNSUPPORTED",
      e.keyAt,
      `'${e.key}' is an assay feature toolgate does not enforce; the policy is refused rather than run without it`,
      hint,
    );
  }
}

/**
 * One deprecation warning per file, however many deprecated constructs it uses: `W_DEPRECATED_V1` for a
 * v1 file or `constraints`, otherwise `W_DEPRECATED_ROOT_LIST` for root-level allow/deny in a v2 file.
 */
function warnDeprecations(
  r: PolicyReader,
  root: SourceMap,
  version: string | undefined,
  legacy: { rootAllowDeny: boolean; constraints: boolean },
  rootLists: (SourceEntry | undefined)[],
): void {
  const hint = "run 'toolgate policy migrate' to write the v2 form";
  const constructs = [
    ...(legacy.constraints ? ["'constraints'"] : []),
    ...(legacy.rootAllowDeny ? ["root-level allow/deny"] : []),
  ];
  const firstRootList = rootLists
    .filter((e): e is SourceEntry => e !== undefined)
    .sort((a, b) => a.keyAt.line - b.keyAt.line)[0];
  if (version === "1.0") {
    const at = entryOf(root, "version")!.value.at;
    const uses = constructs.length > 0 ? ` (${constructs.join(" and ")})` : "";
    r.warn("W_DEPRECATED_V1", at, `the v1 policy format${uses} is deprecated; it is read as v2`, hint);
  } else if (legacy.constraints) {
    const at = entryOf(root, "constraints")!.keyAt;
    r.warn(
      "W_DEPRECATED_V1",
      at,
      `${constructs.join(" and ")} ${constructs.length > 1 ? "are" : "is"} v1 syntax, deprecated; read as v2 schemas`,
      hint,
    );
  } else if (firstRootList !== undefined) {
    r.warn(
      "W_DEPRECATED_ROOT_LIST",
      firstRootList.keyAt,
      "root-level allow/deny is deprecated; it is merged into tools.allow / tools.deny",
      hint,
    );
  }
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
