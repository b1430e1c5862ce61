import type { SourceMap } from "../engine/model/source.js";
import type { PolicyReader } from "./policyReader.js";

/**
 * Fields of the assay policy format that toolgate does not enforce or does not read, and what the policy
 * loader does about each: refuse the policy, or warn that it is ignored. Kept together so the list of what
 * assay can say and toolgate cannot is in one place.
 */

/**
 * Fields of the assay format that toolgate does not enforce. Each of them denies, constrains or narrows
 * something in assay, so running without it would admit more than the author wrote: refuse the policy.
 */
export const UNSUPPORTED_TOP_LEVEL: Record<string, string> = {
  tool_classes: "name the tools in tools.allow / tools.deny instead of classing them",
  signatures: "use tool_pins (meta_hash pins the description) instead",
  runtime_monitor: "remove it; toolgate has no runtime monitor",
  kill_switch: "remove it; toolgate has no kill switch",
};
export const UNSUPPORTED_TOOLS: Record<string, string> = {
  allow_classes: "list the tools by name in tools.allow",
  deny_classes: "list the tools by name in tools.deny",
  approval_required_classes: "list the tools by name in tools.approval_required",
  restrict_scope_classes: "list the tools by name in tools.restrict_scope",
  redact_args_classes: "list the tools by name in tools.redact_args",
};
/** assay fields that do not affect any decision: ignored with a warning. */
export const IGNORED_TOP_LEVEL: Record<string, string> = {
  discovery: "assay's server discovery settings do not affect tool decisions",
};

/** `map` without the keys that get their own diagnostic, so the unknown-field hint lists only real fields. */
export function without(map: SourceMap, ...handled: Record<string, string>[]): SourceMap {
  return { ...map, entries: map.entries.filter((e) => !handled.some((h) => Object.hasOwn(h, e.key))) };
}
export function refuseUnsupported(
  r: PolicyReader,
  map: SourceMap,
  unsupported: Record<string, string>,
): void {
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
