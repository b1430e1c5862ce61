/** One reference token of a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string): string {
  if (token.indexOf("~") === -1 && token.indexOf("/") === -1) return token;
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}
