import { compilePolicyWildcard } from "../../../engine/patterns/index.js";

/**
 * What one Claude Code permission rule means for the tools of one MCP server. Claude names an MCP tool
 * `mcp__<server>__<tool>` and matches rules against that whole name (notes/clients.md §1.6):
 * `mcp__<server>` and `mcp__<server>__*` cover the server, `mcp__<server>__<glob>` some of its tools, and
 * `mcp__*` (in deny and ask only) every MCP tool.
 */
export type RuleScope =
  /** Another server's tool, or not an MCP tool at all (Bash, Edit, WebFetch …). */
  | { kind: "other" }
  /** `mcp__<server>__<tool>(…)`: a rule on the arguments. */
  | { kind: "parameters" }
  /** A glob over this server's tool names (`*` for the whole server). */
  | { kind: "tools"; glob: string }
  /**
   * Stars that reach into the server name with nothing after them (`mcp__*`, `*`, `mcp__gi*`): every tool
   * of this server. Only `mcp__*` is documented, and only for deny and ask.
   */
  | { kind: "any-server"; documented: boolean }
  /** Stars in the server name followed by more (`mcp__*__get_*`): some tools, not sayable per server. */
  | { kind: "server-glob" };

export function ruleScope(rule: string, server: string): RuleScope {
  const paren = rule.indexOf("(");
  const base = paren === -1 ? rule : rule.slice(0, paren);
  const scope = baseScope(base, server);
  return paren !== -1 && scope.kind !== "other" ? { kind: "parameters" } : scope;
}

function baseScope(base: string, server: string): RuleScope {
  const prefix = `mcp__${server}__`;
  if (base === `mcp__${server}`) return { kind: "tools", glob: "*" };
  if (base.startsWith(prefix)) return { kind: "tools", glob: base.slice(prefix.length) };
  const star = base.indexOf("*");
  // Without a star the rule names one tool exactly, and it is not one of this server's.
  if (star === -1 || !prefix.startsWith(base.slice(0, star))) return { kind: "other" };
  const rest = base.slice(star).replace(/^\*+/, "");
  if (rest === "") return { kind: "any-server", documented: base === "mcp__*" };
  return { kind: "server-glob" };
}

/** The server a rule names literally (`mcp__github__x` → `github`), for listing the servers of a file. */
export function literalServer(rule: string): string | undefined {
  const paren = rule.indexOf("(");
  const base = paren === -1 ? rule : rule.slice(0, paren);
  if (!base.startsWith("mcp__")) return undefined;
  const rest = base.slice("mcp__".length);
  const end = rest.indexOf("__");
  const name = end === -1 ? rest : rest.slice(0, end);
  return name === "" || name.includes("*") ? undefined : name;
}

/** A Claude tool-name glob as a toolgate pattern: exactly, or as the tightest one of the five forms that covers it. */
export type Converted = { exact: true; pattern: string } | { exact: false; pattern: string };

/**
 * Claude's `*` matches any run of characters wherever it stands; toolgate's does only at either end (one
 * in the middle is a literal asterisk, docs/policy-files.md). Runs of stars mean what one star means, so
 * they are collapsed first; a glob whose stars are then only at its ends is the same pattern in toolgate.
 * Otherwise every name it matches starts with the text before its first star, ends with the text after
 * its last, and contains each piece between: the first of these that is not empty is a pattern that
 * matches at least everything the glob does (a superset, for deny and approval lists only).
 */
export function convertGlob(glob: string): Converted {
  const collapsed = glob.replace(/\*+/g, "*");
  if (!compilePolicyWildcard(collapsed).hasLiteralStar) return { exact: true, pattern: collapsed };
  const pieces = collapsed.split("*");
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  if (head !== "") return { exact: false, pattern: `${head}*` };
  if (tail !== "") return { exact: false, pattern: `*${tail}` };
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a), "");
  return { exact: false, pattern: `*${longest}*` };
}
