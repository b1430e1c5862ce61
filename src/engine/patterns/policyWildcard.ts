/**
 * The policy file's tool-name wildcard (assay policy files, "Wildcards"). The language has exactly five
 * forms, chosen by where the stars are, never by what lies between them:
 *
 *   only stars ("*", "**", …)   all        matches every name, the empty one included
 *   "*mid*"                     substring  name contains `mid` (interior stars are literal)
 *   "*tail"                     suffix     name ends with `tail` (any further star is literal)
 *   "head*"                     prefix     name starts with `head` (any further star is literal)
 *   no star                     exact      name === pattern ("" matches only the empty name)
 *
 * A star that is neither first nor last is a literal asterisk, so `read_*_file` names only the tool
 * literally called `read_*_file`. `hasLiteralStar` flags those patterns: the author almost certainly
 * meant a glob this language does not have, and in a deny list such a line blocks nothing.
 *
 * The stars that do expand cross every character, including `.` and `__` namespace separators. Matching
 * is case-sensitive and uses one startsWith/endsWith/includes/=== call: linear in the name's length.
 */

export type PolicyWildcardForm = "exact" | "all" | "prefix" | "suffix" | "substring";

export interface PolicyWildcard {
  readonly source: string;
  readonly form: PolicyWildcardForm;
  /** The exact, prefix, suffix or substring text; '' for the `all` form. */
  readonly literal: string;
  /** The literal text contains `*`: the author probably meant a glob the five forms do not have. */
  readonly hasLiteralStar: boolean;
  matches(name: string): boolean;
}

const ONLY_STARS = /^\*+$/;

function classify(pattern: string): { form: PolicyWildcardForm; literal: string } {
  if (!pattern.includes("*")) return { form: "exact", literal: pattern };
  if (ONLY_STARS.test(pattern)) return { form: "all", literal: "" };
  const leading = pattern.startsWith("*");
  const trailing = pattern.endsWith("*");
  // Not all stars, so a pattern with both a leading and a trailing star has length >= 3.
  if (leading && trailing) return { form: "substring", literal: pattern.slice(1, -1) };
  if (leading) return { form: "suffix", literal: pattern.slice(1) };
  if (trailing) return { form: "prefix", literal: pattern.slice(0, -1) };
  return { form: "exact", literal: pattern };
}

function matcherFor(form: PolicyWildcardForm, literal: string): (name: string) => boolean {
  switch (form) {
    case "all":
      return () => true;
    case "prefix":
      return (name) => name.startsWith(literal);
    case "suffix":
      return (name) => name.endsWith(literal);
    case "substring":
      return (name) => name.includes(literal);
    case "exact":
      return (name) => name === literal;
  }
}

export function compilePolicyWildcard(pattern: string): PolicyWildcard {
  const { form, literal } = classify(pattern);
  const match = matcherFor(form, literal);
  return Object.freeze({
    source: pattern,
    form,
    literal,
    hasLiteralStar: literal.includes("*"),
    matches: (name: string) => match(name),
  });
}
