/**
 * Cursors of aggregated lists (resources, resource templates, prompts). Each page toolgate returns is one
 * page of one server, in the session's server order; the cursor says which server comes next and that
 * server's own cursor. Opaque to clients (base64url JSON), checked strictly when it comes back. Pure.
 */

export interface ListPosition {
  server: string;
  /** The server's own cursor; null for its first page. */
  cursor: string | null;
}

export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.server, position.cursor]), "utf8").toString("base64url");
}

/** The position a cursor stands for, or null when it is not one toolgate issued for these servers. */
export function decodeCursor(text: string, servers: readonly string[]): ListPosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [server, cursor] = value as unknown[];
  if (typeof server !== "string" || !servers.includes(server)) return null;
  if (cursor !== null && typeof cursor !== "string") return null;
  return { server, cursor };
}
