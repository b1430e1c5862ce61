import { printable } from "../engine/text/printable.js";

/**
 * HTML built only through this module: every value that is not a {@link SafeHtml} is escaped on the way in,
 * so a tool name, a pattern, a message from a server or a line of an audit log can never become markup. Names
 * come from servers and files an attacker may control (`<script>`, `"onmouseover=`, a terminal escape, a
 * right-to-left override); they are first made printable (control characters become `\u…` escapes, inert and
 * visible), then HTML-escaped. Pure.
 */

const HTML_SPECIALS = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe in element content and in quoted attribute values (both quote kinds are escaped). */
export function escapeHtml(text: string): string {
  return printable(text).replace(HTML_SPECIALS, (c) => ENTITIES[c]!);
}

/** Markup already escaped (or written by this program): the only thing {@link markup} inserts as it is. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function piece(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(piece).join("");
  return escapeHtml(String(value));
}

/**
 * A tagged template: the literal parts are markup, every `${value}` is escaped unless it is SafeHtml (or a
 * list of them). `null`, `undefined` and `false` render as nothing, so `${cond && markup`…`}` reads naturally.
 */
export function markup(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** A list of fragments as one. */
export function join(parts: readonly SafeHtml[], separator = ""): SafeHtml {
  return new SafeHtml(parts.map((p) => p.text).join(separator));
}

/** `?a=1&b=2` from pairs (a value list repeats the key); values are URL-encoded, not HTML-escaped yet. */
export function queryString(pairs: readonly (readonly [string, string | undefined])[]): string {
  const params = new URLSearchParams();
  for (const [key, value] of pairs) if (value !== undefined && value !== "") params.append(key, value);
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
