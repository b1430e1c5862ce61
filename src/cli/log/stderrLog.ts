import type { Diagnostic } from "../../engine/model/diagnostics.js";
import { formatDiagnostic } from "../../engine/model/diagnostics.js";
import type { LogFields } from "../../engine/model/logFields.js";
import { printable } from "../../engine/text/printable.js";
import { classifyLine } from "./lineCodes.js";
import type { LogEntry } from "./logEntry.js";
import type { LogFormat } from "./logFormat.js";

/**
 * Everything wrap and serve print on stderr goes through here: the text lines they always printed, or with
 * `--log-format json` one JSON object a line (`time`, `level`, `code`, `message`, and `principal`, `server`,
 * `tool` where there is one), for a log pipeline to read without parsing prose.
 */
let format: LogFormat = "text";

/** Set once, before anything is printed (main.ts from the raw arguments; the option's parser again). */
export function setLogFormat(next: LogFormat): void {
  format = next;
}

export function logFormat(): LogFormat {
  return format;
}

/**
 * Characters JSON.stringify leaves raw that a terminal or a line-based reader takes as structure (line and
 * paragraph separators, bidirectional overrides): escaped, so the parsed message is the same text.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function jsonLine(entry: LogEntry, now: Date = new Date()): string {
  const { level, code, message, ...rest } = entry;
  const object: Record<string, unknown> = { time: now.toISOString(), level, code, message };
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) object[key] = value;
  return (
    JSON.stringify(object).replace(
      RAW_IN_JSON,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    ) + "\n"
  );
}

/** Error messages printed while withCapturedErrors runs (a reload records them in the audit log). */
let captured: string[] | null = null;

/** Runs `fn`, and returns with its value the message of every error line printed meanwhile. */
export function withCapturedErrors<T>(fn: () => T): { value: T; errors: string[] } {
  const previous = captured;
  const errors: string[] = [];
  captured = errors;
  try {
    return { value: fn(), errors };
  } finally {
    captured = previous;
  }
}

/** One entry: `text` (ending in a newline) as the text form prints it, or the entry as a JSON line. */
export function logEntry(entry: LogEntry, text: string): void {
  if (captured !== null && entry.level === "error") {
    captured.push(text.trimEnd());
    // The loaders say "refused to start"; during a reload what is refused is the reload.
    if (entry.code === "E_START_REFUSED") entry = { ...entry, code: "E_RELOAD_REFUSED" };
  }
  process.stderr.write(format === "json" ? jsonLine(entry) : text);
}

/**
 * A `toolgate: …` line, as the layers below print them through their `log(line)` callbacks. The code comes
 * from `fields` when the caller knows it, else from the text (see lineCodes.ts).
 */
export function logLine(line: string, fields: LogFields = {}): void {
  if (captured !== null && classifyLine(line, fields).level === "error") {
    captured.push(line);
    if (fields.code === "E_START_REFUSED") fields = { ...fields, code: "E_RELOAD_REFUSED" };
  }
  if (format === "text") {
    process.stderr.write(`toolgate: ${printable(line)}\n`);
    return;
  }
  process.stderr.write(jsonLine(classifyLine(line, fields)));
}

/** A finding about an input file: `file:line:col: severity CODE field: message (hint: …)`. */
export function logDiagnostic(d: Diagnostic): void {
  logEntry(
    {
      level: d.severity,
      code: d.code,
      message: d.message,
      file: d.file,
      ...(d.line > 0 ? { line: d.line, column: d.column } : {}),
      ...(d.path === "" ? {} : { field: d.path }),
      ...(d.hint === undefined ? {} : { hint: d.hint }),
    },
    formatDiagnostic(d) + "\n",
  );
}

/** A refusal to start or run: `toolgate: error CODE: message`, then `  hint: …` when there is one. */
export function logError(code: string, message: string, hint?: string): void {
  logEntry(
    { level: "error", code, message, ...(hint === undefined ? {} : { hint }) },
    `toolgate: error ${code}: ${printable(message)}\n` +
      (hint === undefined ? "" : `  hint: ${printable(hint)}\n`),
  );
}
