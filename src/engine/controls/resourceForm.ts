import { MAX_DECODE_ROUNDS, pathVariants, percentDecode, shapeText } from "./pathForm.js";

/**
 * How a `resource` scope reads a URI/URL argument, and how the approval check compares resources.
 *
 * A value with a URI scheme that the WHATWG URL parser accepts is compared in its parsed form (`href`):
 * scheme and host lowercased, default port dropped, `.`/`..` segments (also `%2e`) resolved, so
 * `https://api.example.com/v1/../admin` is compared as `https://api.example.com/admin`. A path segment
 * that still decodes to `.` or `..` (double encoding, `%252e%252e`) is refused, as is a NUL anywhere.
 * Anything else (a bare name, or text the URL parser rejects) is compared exactly as written.
 *
 * A URL that common HTTP clients could read with a different authority than the WHATWG parser is refused,
 * not guessed (a parser differential): `https://ok.example\api\@evil.com/x` is a path under ok.example to
 * WHATWG (which reads `\` as `/`) and a connection to evil.com to curl and Python's httpx (which do not).
 * So a URL of a special scheme is refused when it holds a backslash, a control character or whitespace
 * (which WHATWG drops and others keep), no `//` authority, userinfo (`@`), a percent-encoded or non-ASCII
 * authority, or an authority whose plain RFC 3986 reading differs from the host WHATWG parsed
 * (`http://0x7f.1/` is 127.0.0.1 to one and a name to another).
 */

export type ResourceForm = { ok: true; text: string } | { ok: false; reason: string };

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** The schemes WHATWG parses specially (backslash as `/`, host normalized): where parsers part ways. */
const SPECIAL_SCHEMES = new Set(["http:", "https:", "ws:", "wss:", "ftp:", "file:"]);
const DEFAULT_PORTS: Record<string, string> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
  "ftp:": "21",
};
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;

export function resourceForm(value: string): ResourceForm {
  if (value.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (!SCHEME.test(value)) return { ok: true, text: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: true, text: value };
  }
  const differs = parserDifferential(value, url);
  if (differs !== null) return { ok: false, reason: differs };
  let path = url.pathname;
  for (let round = 0; round <= MAX_DECODE_ROUNDS && path.includes("%"); round++) {
    const next = percentDecode(path);
    if (next === null) return { ok: false, reason: "has percent-encoded bytes that are not UTF-8" };
    if (next.includes("\0")) return { ok: false, reason: "contains a NUL byte (percent-encoded)" };
    if (
      next
        .replace(/\\/g, "/")
        .split("/")
        .some((s) => s === "." || s === "..")
    ) {
      return { ok: false, reason: "has a percent-encoded '.' or '..' path segment" };
    }
    if (next === path) break;
    path = next;
  }
  return { ok: true, text: url.href };
}

/** Why HTTP clients could read this URL with another authority than WHATWG did, or `null`. */
function parserDifferential(value: string, url: URL): string | null {
  if (!SPECIAL_SCHEMES.has(url.protocol)) return null;
  if (CONTROL_OR_SPACE.test(value)) {
    return "contains a control character or whitespace, which URL parsers drop or keep differently";
  }
  if (value.includes("\\")) {
    return "contains a backslash, which WHATWG parsers read as '/' and curl or httpx as a literal character, so they can reach different hosts";
  }
  if (url.protocol === "file:") return null;
  const written = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(value);
  if (written === null) return "has no '//' authority, which URL parsers fill in differently";
  const authority = written[1]!;
  if (authority.includes("@"))
    return "carries userinfo ('@' in the authority), which URL parsers split differently";
  if (authority.includes("%")) return "has a percent-encoded authority, which URL parsers decode differently";
  if (/[^\x21-\x7e]/.test(authority))
    return "has a non-ASCII authority, which URL parsers convert differently";
  let plain = authority.toLowerCase();
  if (plain.endsWith(":")) plain = plain.slice(0, -1);
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort !== undefined && plain.endsWith(`:${defaultPort}`))
    plain = plain.slice(0, -defaultPort.length - 1);
  if (plain !== url.host) {
    return `its authority '${authority}' is the host '${url.host}' to a WHATWG parser and not to others`;
  }
  return null;
}

/**
 * `value` matches a resource scope. `prefix` holds at a boundary only: the scope ends with `/`, `:`, `?`
 * or `#`, or the value continues with `/`, `?` or `#` — so `https://api.example.com` does not admit
 * `https://api.example.com.evil.net` or `https://api.example.com@evil.net`. `contains` is a plain
 * substring test on the value as written: the weakest mode, kept for compatibility.
 */
export function resourceMatches(
  value: string,
  form: string,
  scope: string,
  mode: "exact" | "prefix" | "contains",
): boolean {
  if (mode === "contains") return value.includes(scope);
  const s = resourceForm(scope);
  const scopeText = s.ok ? s.text : scope;
  if (mode === "exact") return form === scopeText;
  if (!form.startsWith(scopeText)) return false;
  if (form.length === scopeText.length) return true;
  if ("/:?#".includes(scopeText[scopeText.length - 1]!)) return true;
  return "/?#".includes(form[scopeText.length]!);
}

/**
 * One canonical text for a resource named by a call or bound by an approval, so the two compare equal when
 * they name the same thing: an absolute path or `file:` URI becomes its normalized path (`/a/./b/../c` →
 * `/a/c`); another URI its parsed `href`; anything else stays as written.
 */
export function canonicalResource(value: string): string {
  if (
    value.startsWith("/") ||
    value.startsWith("\\") ||
    value.startsWith("~") ||
    /^[A-Za-z]:[\\/]/.test(value) ||
    /^file:/i.test(value)
  ) {
    const v = pathVariants(value);
    if (v.ok) return shapeText(v.forms[0]!);
    return value;
  }
  const r = resourceForm(value);
  return r.ok ? r.text : value;
}
