/**
 * A text as it may be printed to a terminal or a log line: every control character (C0, DEL, C1), the
 * Unicode line and paragraph separators and the bidirectional overrides are written as escapes (`\n`,
 * `\u001b`, `\u202e`). Tool names, server names and messages come from models, servers and files; printed
 * raw, a newline would forge a log line and an escape sequence would rewrite the terminal.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function printable(text: string): string {
  if (!UNPRINTABLE.test(text)) return text;
  UNPRINTABLE.lastIndex = 0;
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Each line of a multi-line text made printable, the line breaks themselves kept. */
export function printableLines(text: string): string {
  return text
    .split("\n")
    .map((line) => printable(line))
    .join("\n");
}
