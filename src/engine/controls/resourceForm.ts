import { MAX_DECODE_ROUNDS, pathVariants, percentDecode, shapeText } from "./pathForm.js";

/**
 * How a `resource` scope reads a URI/URL argument, and how the approval check compares resources.
 *
 * A value with a URI scheme that the WHATWG URL parser accepts is compared in its parsed form (`href`):
 * scheme and host lowercased, default port dropped, `.`/`..` segments (also `%2e`) resolved, so
 * `https://api.example.com/v1/../admin` is compared as `https://api.example.com/admin`. A path segment
 * that still decodes to `.` or `..` (double encoding, `%252e%252e`) is refused, as is a NUL anywhere.
 * Anything else (a bare name, or text the URL parser rejects) is compared exactly as written.
 */

export type ResourceForm = { ok: true; text: string } | { ok: false; reason: string };

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export function resourceForm(value: string): ResourceForm {
  if (value.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (!SCHEME.test(value)) return { ok: true, text: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: true, text: value };
  }
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
