import type { Policy } from "../engine/model/policy.js";
import type { SourceEntry, SourceMap } from "../engine/model/source.js";
import type { PolicyReader } from "./policyReader.js";
import { entryOf } from "./sourceTree.js";

/**
 * The policy file's `version`, and the one warning a file of an older form gets (v1, `constraints`,
 * root-level allow/deny), both read before the policy is built so that every file says which form it is.
 */

export const SUPPORTED_VERSIONS = ["2.0", "1.0"] as const;

export function readVersion(r: PolicyReader, root: SourceMap): Policy["sourceVersion"] | undefined {
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
/**
 * One deprecation warning per file, however many deprecated constructs it uses: `W_DEPRECATED_V1` for a
 * v1 file or `constraints`, otherwise `W_DEPRECATED_ROOT_LIST` for root-level allow/deny in a v2 file.
 */
export function warnDeprecations(
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
