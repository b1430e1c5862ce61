/**
 * Names of MCP servers and `mapping_mcp_servers` aliases. They become parts of tool names
 * (`<server>__<tool>` in direct mode, `mcp_search_<server>` in meta-tool mode), so they must be usable there:
 * ASCII letters, digits, `_` and `-`, starting with a letter or digit, without `__` (the separator) and not
 * ending in `_` (which would make `<server>__<tool>` contain `___` and split ambiguously). `all` is reserved:
 * `enabled_mcp_servers: all` means every server.
 */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const SERVER_NAME_MAX_LENGTH = 64;

/** Why `name` cannot name a server or alias, or null when it can. */
export function serverNameProblem(name: string): string | null {
  if (name === "") return "a server name must not be empty";
  if (name.length > SERVER_NAME_MAX_LENGTH) {
    return `server name '${name}' is longer than ${SERVER_NAME_MAX_LENGTH} characters`;
  }
  if (!SERVER_NAME.test(name)) {
    return (
      `server name '${name}' must use only letters, digits, '_' and '-' and start with a letter or digit, ` +
      `because it becomes part of tool names like '${name}__<tool>'`
    );
  }
  if (name.includes("__")) {
    return `server name '${name}' must not contain '__', which separates server and tool in '<server>__<tool>'`;
  }
  if (name.endsWith("_")) {
    return `server name '${name}' must not end with '_', which would make '<server>__<tool>' ambiguous`;
  }
  if (name === "all") return "'all' is reserved (enabled_mcp_servers: all enables every server)";
  return null;
}
