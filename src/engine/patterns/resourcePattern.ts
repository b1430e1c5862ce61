/**
 * A `resources.allow` / `resources.deny` entry of a policy file: a resource URI or URI template, in one of
 * three forms chosen by the entry's last character and its braces:
 *
 *   only stars ("*")              all       matches every URI and template
 *   ends in "*"                   prefix    plain string prefix: `file:///srv/app/*`, the scheme form `memory://*`
 *   has "{…}" expressions         template  the template itself, and every URI it can expand to
 *   anything else                 exact     uri === pattern
 *
 * A prefix is a string prefix, not a path: `file:///srv/app*` also matches `file:///srv/application`
 * (policy lint warns about an allow prefix that does not end in `/`). A star anywhere but at the end is
 * not a wildcard; the loader refuses such an entry ({@link resourcePatternProblem}) rather than let a deny
 * line block nothing.
 *
 * Template expansion (RFC 6570) is matched as a superset: a level-1 expression `{var}` stands for one or
 * more characters other than `/`; an expression with an operator (`{+path}`, `{#f}`, `{/seg}`, `{?q}` …)
 * for any run of characters, since those may produce `/` or nothing at all. Matching more than the server
 * would expand is the safe direction for a deny entry, and the intended one for an allow entry naming a
 * template the server offers.
 */

export type ResourcePatternForm = "all" | "prefix" | "template" | "exact";

export interface ResourcePattern {
  readonly source: string;
  readonly form: ResourcePatternForm;
  /** The prefix (prefix form) or the whole pattern (exact, template); '' for `all`. */
  readonly literal: string;
  matches(uriOrTemplate: string): boolean;
}

const ONLY_STARS = /^\*+$/;
const EXPRESSION = /\{([^{}]*)\}/g;
const LEVEL_ONE = /^[A-Za-z0-9_%][A-Za-z0-9_.%]*(,[A-Za-z0-9_%][A-Za-z0-9_.%]*)*$/;

/** Why an entry cannot be a resource pattern, or `null` when it can. */
export function resourcePatternProblem(pattern: string): string | null {
  if (ONLY_STARS.test(pattern)) return null;
  const star = pattern.indexOf("*");
  if (star !== -1 && star !== pattern.length - 1) {
    return `'${pattern}' has a '*' that is not its last character; resource patterns have no such wildcard, so it would match only a URI literally containing '*'`;
  }
  return null;
}

export function compileResourcePattern(pattern: string): ResourcePattern {
  if (ONLY_STARS.test(pattern)) return frozen(pattern, "all", "", () => true);
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return frozen(pattern, "prefix", prefix, (uri) => uri.startsWith(prefix));
  }
  const template = templateRegex(pattern);
  if (template !== null) {
    return frozen(pattern, "template", pattern, (uri) => uri === pattern || template.test(uri));
  }
  return frozen(pattern, "exact", pattern, (uri) => uri === pattern);
}

/** Whether a URI (or template) is a URI template: it has at least one `{…}` expression. */
export function isUriTemplate(text: string): boolean {
  return /\{[^{}]*\}/.test(text);
}

/** The anchored regex of the URIs a template can expand to, or `null` when it has no expression. */
export function templateRegex(template: string): RegExp | null {
  let source = "";
  let last = 0;
  let expressions = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    source += escapeRegex(template.slice(last, m.index));
    source += LEVEL_ONE.test(m[1]!) ? "[^/]+" : "[\\s\\S]*";
    last = m.index + m[0].length;
    expressions++;
  }
  if (expressions === 0) return null;
  source += escapeRegex(template.slice(last));
  return new RegExp(`^${source}$`);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function frozen(
  source: string,
  form: ResourcePatternForm,
  literal: string,
  matches: (uri: string) => boolean,
): ResourcePattern {
  return Object.freeze({ source, form, literal, matches });
}
