import { posix, win32 } from "node:path";
import type {
  RedactContract,
  RedactionMode,
  ScopeContract,
  ScopeMatchMode,
  ScopeType,
} from "../engine/model/policy.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import type { PolicyReader } from "./policyReader.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";
import { appendAll } from "../engine/model/diagnostics.js";

/**
 * `tools.restrict_scope_contract` and `tools.redact_args_contract`. Values outside the accepted sets are
 * errors, never "not evaluated at run time": a control toolgate cannot enforce must stop the policy from
 * loading rather than let the tools it names through unchecked.
 */

export const SCOPE_TYPES: readonly ScopeType[] = ["path_prefix", "resource", "tool"];
export const SCOPE_MATCH_MODES: readonly ScopeMatchMode[] = ["exact", "prefix", "contains"];
/** A path scope is contained by path segment or matched whole; a substring test on paths means nothing safe. */
const PATH_MATCH_MODES: readonly ScopeMatchMode[] = ["prefix", "exact"];
export const REDACTION_TARGETS: readonly RedactContract["redactionTarget"][] = ["args"];
export const REDACTION_MODES: readonly RedactionMode[] = ["mask", "hash", "drop", "partial"];
export const REDACTION_SCOPES: readonly RedactContract["redactionScope"][] = [
  "sensitive_fields",
  "all_fields",
];

const SCOPE_FIELDS = ["scope_type", "scope_value", "scope_match_mode", "path_arguments", "realpath"] as const;
const REDACT_FIELDS = ["redaction_target", "redaction_mode", "redaction_scope", "fields"] as const;

/** Used when `redact_args` lists tools without a contract: redact every string, the cautious reading. */
export function defaultRedactContract(at: SourceRef): RedactContract {
  return { redactionTarget: "args", redactionMode: "mask", redactionScope: "all_fields", at };
}

export function readScopeContract(r: PolicyReader, map: SourceMap): ScopeContract | undefined {
  appendAll(r.diagnostics, unknownKeyWarnings(map, SCOPE_FIELDS, "tools.restrict_scope_contract"));
  const typeNode = r.required(map, "scope_type");
  const valueNode = r.required(map, "scope_value");
  const modeNode = r.required(map, "scope_match_mode");
  const scopeType = typeNode && r.oneOf(typeNode, SCOPE_TYPES, "E_POLICY_CONTRACT_VALUE");
  const values = valueNode && readScopeValues(r, valueNode, scopeType);
  const scopeValue = values?.[0];
  const modes = scopeType === "path_prefix" ? PATH_MATCH_MODES : SCOPE_MATCH_MODES;
  const scopeMatchMode = modeNode && r.oneOf(modeNode, modes, "E_POLICY_CONTRACT_VALUE");
  let ok = scopeType !== undefined && scopeValue !== undefined && scopeMatchMode !== undefined;

  let pathArguments: string[] | undefined;
  const argsEntry = entryOf(map, "path_arguments");
  if (argsEntry !== undefined) {
    const node = argsEntry.value;
    if (node.kind !== "seq") {
      r.typeError(node, "a list of argument names or JSON pointers");
      ok = false;
    } else {
      pathArguments = [];
      for (const item of node.items) {
        const s = r.nonEmptyString(item, "an argument name or JSON pointer");
        if (s === undefined) ok = false;
        else pathArguments.push(s);
      }
    }
    if (scopeType !== undefined && scopeType !== "path_prefix") {
      r.warn(
        "W_CONTRACT_FIELD_UNUSED",
        argsEntry.keyAt,
        `path_arguments only applies to scope_type 'path_prefix', not '${scopeType}'`,
      );
    }
  }

  let realpath: boolean | undefined;
  const realpathEntry = entryOf(map, "realpath");
  if (realpathEntry !== undefined) {
    realpath = r.boolean(realpathEntry.value);
    if (realpath === undefined) ok = false;
    if (scopeType !== undefined && scopeType !== "path_prefix") {
      r.warn(
        "W_CONTRACT_FIELD_UNUSED",
        realpathEntry.keyAt,
        `realpath only applies to scope_type 'path_prefix', not '${scopeType}'`,
      );
    }
  }

  if (!ok) return undefined;
  const contract: ScopeContract = {
    scopeType: scopeType!,
    scopeValue: scopeValue!,
    scopeMatchMode: scopeMatchMode!,
    at: map.at,
  };
  if (valueNode?.kind === "seq") contract.scopeValues = values!;
  if (pathArguments !== undefined) contract.pathArguments = pathArguments;
  if (realpath !== undefined) contract.realpath = realpath;
  return contract;
}

/**
 * `scope_value`: one string, or (toolgate extension, `path_prefix` only) a non-empty list of them, for a
 * server given several roots: a path is in scope when it is inside any of them. Every path must be
 * absolute. `undefined` (with the error reported) when it is not acceptable.
 */
function readScopeValues(
  r: PolicyReader,
  node: SourceNode,
  scopeType: ScopeType | undefined,
): string[] | undefined {
  if (node.kind === "seq" && scopeType !== "path_prefix") {
    if (scopeType !== undefined) {
      r.error(
        "E_POLICY_CONTRACT_VALUE",
        node.at,
        `a list of scope values is accepted for scope_type 'path_prefix' only, not '${scopeType}'`,
        "write one scope value",
      );
    }
    return undefined;
  }
  const items = node.kind === "seq" ? node.items : [node];
  if (items.length === 0) {
    r.error(
      "E_POLICY_CONTRACT_VALUE",
      node.at,
      "scope_value is an empty list, which would contain nothing",
      "list at least one absolute path",
    );
    return undefined;
  }
  const values: string[] = [];
  let ok = true;
  for (const item of items) {
    const value = r.nonEmptyString(
      item,
      node.kind === "seq" ? "an absolute path" : "a scope value (a string)",
    );
    if (value === undefined) {
      ok = false;
      continue;
    }
    if (scopeType === "path_prefix" && !posix.isAbsolute(value) && !win32.isAbsolute(value)) {
      r.error(
        "E_POLICY_CONTRACT_VALUE",
        item.at,
        `a path_prefix scope must be an absolute path, got '${value}'`,
      );
      ok = false;
      continue;
    }
    values.push(value);
  }
  return ok ? values : undefined;
}

export function readRedactContract(r: PolicyReader, map: SourceMap): RedactContract | undefined {
  appendAll(r.diagnostics, unknownKeyWarnings(map, REDACT_FIELDS, "tools.redact_args_contract"));
  const targetNode = r.required(map, "redaction_target");
  const modeNode = r.required(map, "redaction_mode");
  const scopeNode = r.required(map, "redaction_scope");
  const redactionTarget = targetNode && r.oneOf(targetNode, REDACTION_TARGETS, "E_POLICY_CONTRACT_VALUE");
  const redactionMode = modeNode && r.oneOf(modeNode, REDACTION_MODES, "E_POLICY_CONTRACT_VALUE");
  const redactionScope = scopeNode && r.oneOf(scopeNode, REDACTION_SCOPES, "E_POLICY_CONTRACT_VALUE");
  let ok = redactionTarget !== undefined && redactionMode !== undefined && redactionScope !== undefined;

  let fields: string[] | undefined;
  const fieldsEntry = entryOf(map, "fields");
  if (fieldsEntry !== undefined) {
    const node = fieldsEntry.value;
    if (node.kind !== "seq") {
      r.typeError(node, "a list of field names or JSON pointers");
      ok = false;
    } else {
      fields = [];
      for (const item of node.items) {
        const s = r.nonEmptyString(item, "a field name or JSON pointer");
        if (s === undefined) ok = false;
        else fields.push(s);
      }
    }
  }

  if (!ok) return undefined;
  const contract: RedactContract = {
    redactionTarget: redactionTarget!,
    redactionMode: redactionMode!,
    redactionScope: redactionScope!,
    at: map.at,
  };
  if (fields !== undefined) contract.fields = fields;
  return contract;
}
