import { posix, win32 } from "node:path";
import type {
  RedactContract,
  RedactionMode,
  ScopeContract,
  ScopeMatchMode,
  ScopeType,
} from "../engine/model/policy.js";
import type { SourceRef, SourceMap } from "../engine/model/source.js";
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
  const scopeValue = valueNode && r.nonEmptyString(valueNode, "a scope value (a string)");
  const modes = scopeType === "path_prefix" ? PATH_MATCH_MODES : SCOPE_MATCH_MODES;
  const scopeMatchMode = modeNode && r.oneOf(modeNode, modes, "E_POLICY_CONTRACT_VALUE");
  let ok = scopeType !== undefined && scopeValue !== undefined && scopeMatchMode !== undefined;

  if (scopeType === "path_prefix" && scopeValue !== undefined && valueNode !== undefined) {
    if (!posix.isAbsolute(scopeValue) && !win32.isAbsolute(scopeValue)) {
      r.error(
        "E_POLICY_CONTRACT_VALUE",
        valueNode.at,
        `a path_prefix scope must be an absolute path, got '${scopeValue}'`,
      );
      ok = false;
    }
  }

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
  if (pathArguments !== undefined) contract.pathArguments = pathArguments;
  if (realpath !== undefined) contract.realpath = realpath;
  return contract;
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
