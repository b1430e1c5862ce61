import type { PatternEntry, RedactContract, ScopeContract } from "../engine/model/policy.js";
import { appendAll } from "../engine/model/diagnostics.js";
import type { SourceMap } from "../engine/model/source.js";
import { defaultRedactContract, readRedactContract, readScopeContract } from "./policyContracts.js";
import type { PolicyReader } from "./policyReader.js";
import { refuseUnsupported, UNSUPPORTED_TOOLS, without } from "./policyUnsupported.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";

/**
 * The policy's `tools:` section: the five pattern lists and the scope and redaction contracts, with the
 * checks that tie each contract to its list (a list without its contract, a contract without its list).
 */

const TOOLS_FIELDS = [
  "allow",
  "deny",
  "approval_required",
  "restrict_scope",
  "redact_args",
  "restrict_scope_contract",
  "redact_args_contract",
] as const;

export interface ToolsSection {
  allow?: PatternEntry[];
  deny?: PatternEntry[];
  approvalRequired?: PatternEntry[];
  restrictScope?: PatternEntry[];
  redactArgs?: PatternEntry[];
  restrictScopeContract?: ScopeContract;
  redactArgsContract?: RedactContract;
}

export function readTools(r: PolicyReader, root: SourceMap): ToolsSection {
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
