import type { SourceNode, SourceRef } from "./source.js";

/**
 * The normalized policy, whatever version the file was written in. Loading (src/config/policyLoader.ts)
 * produces it; the policy engine (src/policy/) compiles and decides with it. Every name rule keeps where
 * it came from so a decision can cite the rule that decided it.
 */

/** One entry of a name list (`tools.allow`, `tools.deny`, `tools.approval_required` …). */
export interface PatternEntry {
  /** The pattern as written (five-form policy wildcard). */
  pattern: string;
  at: SourceRef;
}

export type UnconstrainedMode = "warn" | "deny" | "allow";
/** toolgate extension: whether a tool refused by name is hidden from lists (default) or explained on call. */
export type DeniedToolsMode = "hide" | "explain";
/** toolgate extension: whether tools without a pin are offered (default) or withheld. */
export type UnpinnedToolsMode = "allow" | "deny";

export type ScopeType = "path_prefix" | "resource" | "tool";
export type ScopeMatchMode = "exact" | "prefix" | "contains";

export interface ScopeContract {
  scopeType: ScopeType;
  /** The scope value; for a list of them (below), the first. */
  scopeValue: string;
  /**
   * toolgate extension, `path_prefix` only: `scope_value` written as a list (a server given several roots);
   * a path is in scope when it is inside any of them. Absent: the one `scopeValue`.
   */
  scopeValues?: string[];
  scopeMatchMode: ScopeMatchMode;
  /** Argument names (JSON pointers allowed) that hold paths; absent: derived from the tool's input schema. */
  pathArguments?: string[];
  /** Resolve symlinks with realpath before containment (only when the server shares our filesystem). */
  realpath?: boolean;
  at: SourceRef;
}

export type RedactionMode = "mask" | "hash" | "drop" | "partial";

export interface RedactContract {
  redactionTarget: "args";
  redactionMode: RedactionMode;
  /** `sensitive_fields`: fields whose names look secret (and `fields`); `all_fields`: every string leaf. */
  redactionScope: "sensitive_fields" | "all_fields";
  /** Extra field names or JSON pointers to redact. */
  fields?: string[];
  at: SourceRef;
}

export interface ToolPin {
  /** The key of the `tool_pins` map. */
  key: string;
  serverId?: string;
  toolName: string;
  schemaHash: string;
  metaHash: string;
  /** toolgate extension: SHA-256 over the schema with integer literals kept exact (see src/pins/). */
  exactSchemaHash?: string;
  at: SourceRef;
}

export interface Policy {
  /** Path of the file as given, for messages. */
  file: string;
  /** Version the file was written in. */
  sourceVersion: "1.0" | "2.0";
  name?: string;
  description?: string;
  tools: {
    /** `null`: no allowlist (everything not denied is allowed); `[]`: nothing is allowed. */
    allow: PatternEntry[] | null;
    deny: PatternEntry[];
    approvalRequired: PatternEntry[];
    restrictScope: PatternEntry[];
    redactArgs: PatternEntry[];
    restrictScopeContract?: ScopeContract;
    redactArgsContract?: RedactContract;
  };
  /** Per-tool JSON Schemas, shared `$defs` not yet merged in. */
  schemas: Record<string, ToolSchemaEntry>;
  /** `schemas.$defs`, shared by every tool schema. */
  sharedDefs: Record<string, unknown>;
  /** Where `schemas.$defs` is written, and its tree with positions (see ToolSchemaEntry.source). */
  sharedDefsAt?: SourceRef;
  sharedDefsSource?: SourceNode;
  enforcement: {
    unconstrainedTools: UnconstrainedMode;
    deniedTools: DeniedToolsMode;
    unpinnedTools: UnpinnedToolsMode;
  };
  limits: {
    maxRequestsTotal?: number;
    maxToolCallsTotal?: number;
  };
  toolPins: ToolPin[];
  /**
   * toolgate extension, opt-in: which resources (URIs and URI templates) a client may see and use. Absent:
   * resources pass as they always did; the whitelist layers never touch them.
   */
  resources?: ItemRules;
  /** toolgate extension, opt-in: which prompts (by name, five wildcard forms) a client may see and use. */
  prompts?: ItemRules;
  /** Hex SHA-256 of the file's exact text (UTF-8 bytes); recorded in audit events. */
  digest: string;
  /** Deprecated constructs the file used (what `toolgate policy migrate` rewrites); absent: none. */
  legacy?: LegacyConstructs;
}

/** The `resources:` or `prompts:` section: allow/deny lists, deny beating allow, as for tools. */
export interface ItemRules {
  /** `null`: no allowlist (everything not denied is allowed); `[]`: nothing is allowed. */
  allow: PatternEntry[] | null;
  deny: PatternEntry[];
  /** Where the section's key is written. */
  at: SourceRef;
}

export interface LegacyConstructs {
  /** Root-level `allow` / `deny`, merged into `tools.allow` / `tools.deny`. */
  rootAllowDeny: boolean;
  /** v1 `constraints`, turned into in-memory schemas. */
  constraints: boolean;
}

export interface ToolSchemaEntry {
  tool: string;
  schema: unknown;
  at: SourceRef;
  /** True when the schema was generated from a v1 `constraints` entry. */
  fromV1Constraints: boolean;
  /** The schema as written, with positions (v2 `schemas` only), so lint can name the line of a nested keyword. */
  source?: SourceNode;
}
