import { ToolgateError } from "../engine/errors.js";

/**
 * How `toolgate serve` names what it aggregates, so that one client sees many servers without any name
 * standing for two things. Pure.
 *
 * - Tools (direct mode) and prompts: `<server>__<name>`. Server names are checked by the mcp.json loader
 *   (letters, digits, `_`, `-`; no `__`; not ending in `_`), so the first `__` of an exposed name is always
 *   the separator: `a__b__c` is tool `b__c` of server `a`, and `a___x` is tool `_x` of server `a`. Naming
 *   is therefore injective; {@link assertDistinctNames} still checks every table it builds and fails
 *   closed, because a broken assumption must never become last-one-wins.
 * - Meta mode: `mcp_search_<server>`, `mcp_describe_<server>`, `mcp_invoke_<server>` (the spec's names).
 * - Resources and resource templates: `toolgate://<server>/<the server's own URI>`, the server's URI kept
 *   byte for byte (templates keep their `{…}` expressions, so a client can still expand them).
 */

export const NAME_SEPARATOR = "__";

export function exposedName(server: string, name: string): string {
  return `${server}${NAME_SEPARATOR}${name}`;
}

/** The server and its own name, split at the first `__`; null when either side would be empty. */
export function splitExposedName(exposed: string): { server: string; name: string } | null {
  const at = exposed.indexOf(NAME_SEPARATOR);
  if (at <= 0) return null;
  const name = exposed.slice(at + NAME_SEPARATOR.length);
  if (name === "") return null;
  return { server: exposed.slice(0, at), name };
}

export type MetaToolKind = "search" | "describe" | "invoke";

export const META_TOOL_KINDS: readonly MetaToolKind[] = ["search", "describe", "invoke"];

export function metaToolName(kind: MetaToolKind, server: string): string {
  return `mcp_${kind}_${server}`;
}

/** `mcp_invoke_github` → invoke on `github`; null for any other name. Whether the server exists is the caller's. */
export function parseMetaToolName(name: string): { kind: MetaToolKind; server: string } | null {
  for (const kind of META_TOOL_KINDS) {
    const prefix = `mcp_${kind}_`;
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return { kind, server: name.slice(prefix.length) };
    }
  }
  return null;
}

export const RESOURCE_URI_PREFIX = "toolgate://";

export function exposedResourceUri(server: string, uri: string): string {
  return `${RESOURCE_URI_PREFIX}${server}/${uri}`;
}

/** The server and its own URI (or URI template); null when `uri` is not in toolgate's form. */
export function splitResourceUri(uri: string): { server: string; uri: string } | null {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return null;
  const rest = uri.slice(RESOURCE_URI_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return null;
  const own = rest.slice(slash + 1);
  if (own === "") return null;
  return { server: rest.slice(0, slash), uri: own };
}

/**
 * Throws `E_NAME_COLLISION` when two entries got the same exposed name, naming both origins. Called on every
 * table serve builds (tools, prompts, meta tools) so that a collision is an error, never last-one-wins.
 */
export function assertDistinctNames(entries: Iterable<{ exposed: string; origin: string }>): void {
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const first = seen.get(entry.exposed);
    if (first !== undefined) {
      throw new ToolgateError(
        "E_NAME_COLLISION",
        `'${entry.exposed}' would name both ${first} and ${entry.origin}`,
        "rename one of the servers in mcp.json",
      );
    }
    seen.set(entry.exposed, entry.origin);
  }
}
