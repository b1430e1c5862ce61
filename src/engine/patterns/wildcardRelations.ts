import type { PolicyWildcard } from "./policyWildcard.js";

/** How two five-form policy wildcards relate, for lint: containment and possible overlap. */

/** Is every name `inner` matches also matched by `outer`? */
export function covers(outer: PolicyWildcard, inner: PolicyWildcard): boolean {
  if (outer.form === "all") return true;
  switch (inner.form) {
    case "all":
      return false;
    case "exact":
      return outer.matches(inner.literal);
    case "prefix":
      return (
        (outer.form === "prefix" && inner.literal.startsWith(outer.literal)) ||
        (outer.form === "substring" && inner.literal.includes(outer.literal))
      );
    case "suffix":
      return (
        (outer.form === "suffix" && inner.literal.endsWith(outer.literal)) ||
        (outer.form === "substring" && inner.literal.includes(outer.literal))
      );
    case "substring":
      return outer.form === "substring" && inner.literal.includes(outer.literal);
  }
}

/** Is there a name both patterns match? Only two prefixes or two suffixes can be disjoint among the wildcards. */
export function canOverlap(a: PolicyWildcard, b: PolicyWildcard): boolean {
  if (a.form === "exact") return b.matches(a.literal);
  if (b.form === "exact") return a.matches(b.literal);
  if (a.form === "prefix" && b.form === "prefix")
    return a.literal.startsWith(b.literal) || b.literal.startsWith(a.literal);
  if (a.form === "suffix" && b.form === "suffix")
    return a.literal.endsWith(b.literal) || b.literal.endsWith(a.literal);
  return true;
}
