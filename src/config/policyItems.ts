import { appendAll } from "../engine/model/diagnostics.js";
import type { ItemRules, PatternEntry } from "../engine/model/policy.js";
import type { SourceMap } from "../engine/model/source.js";
import { resourcePatternProblem } from "../engine/patterns/resourcePattern.js";
import type { PolicyReader } from "./policyReader.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";

const ITEM_FIELDS = ["allow", "deny"] as const;

/**
 * The opt-in `resources:` and `prompts:` sections (toolgate extension): `allow` / `deny` lists, read like
 * `tools.allow` / `tools.deny`. An absent or empty section stays absent, so a policy without one filters
 * nothing of its kind. A resource entry with a star that is not its last character is refused: it would
 * match only a URI literally containing `*`, and in `deny` block nothing.
 */
export function readItemSection(
  r: PolicyReader,
  root: SourceMap,
  key: "resources" | "prompts",
): ItemRules | undefined {
  const entry = entryOf(root, key);
  const what = key === "resources" ? "resource rules (allow, deny)" : "prompt rules (allow, deny)";
  const map = r.map(entry?.value, what);
  if (entry === undefined || map === undefined) return undefined;
  appendAll(r.diagnostics, unknownKeyWarnings(map, ITEM_FIELDS, key));
  const list = (field: string, allowNull: boolean): PatternEntry[] | undefined => {
    const e = entryOf(map, field);
    return e && r.patternList(e.value, { allowNull });
  };
  const allow = list("allow", false);
  const deny = list("deny", true) ?? [];
  if (key === "resources") {
    for (const p of [...(allow ?? []), ...deny]) {
      const problem = resourcePatternProblem(p.pattern);
      if (problem !== null) {
        r.error(
          "E_POLICY_FIELD_VALUE",
          p.at,
          problem,
          "write the exact URI, a URI template, or a prefix ending in '*' such as 'file:///srv/app/*'",
        );
      }
    }
  }
  return { allow: allow ?? null, deny, at: entry.keyAt };
}
