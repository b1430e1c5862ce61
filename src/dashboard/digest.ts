import { markup, type SafeHtml } from "./html.js";

/**
 * A SHA-256 digest in a table: 64 hex digits would make their column wrap a few characters a line. The
 * `<code>` holds the whole value but is as wide as its first DIGEST_SHOWN digits (the stylesheet clips the
 * rest and adds "…" after it, as generated content, which is neither text nor selectable); the title shows
 * the value whole on hover, and `user-select: all` makes one click select all of it for copying. No script
 * is needed (the pages allow only the live view's own).
 */
export const DIGEST_SHOWN = 12;

export function digestCode(value: string): SafeHtml {
  return markup`<span class="digest"><code title="${value}">${value}</code></span>`;
}
