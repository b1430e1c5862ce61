import type { ToolgateCode } from "./codes.js";
import type { SourceRef } from "./source.js";
import { printable } from "../text/printable.js";

/** A finding about an input file: always names file, line, column and the field path it is about. */
export interface Diagnostic {
  severity: "error" | "warning";
  /** Stable code, e.g. `E_POLICY_FIELD_TYPE` or `W_UNKNOWN_FIELD` (docs/codes.md). */
  code: ToolgateCode;
  message: string;
  file: string;
  /** 1-based; 0 when the finding is about the file as a whole. */
  line: number;
  /** 1-based; 0 when the finding is about the file as a whole. */
  column: number;
  /** Field path in the document, e.g. `tools.deny[2]`; `""` for the document root. */
  path: string;
  hint?: string;
}

/** `file:line:col: severity CODE path: message (hint)` — one line, grep-friendly. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line > 0 ? `${d.file}:${d.line}:${d.column}` : d.file;
  const field = d.path === "" ? "" : ` ${d.path}:`;
  const hint = d.hint ? ` (hint: ${d.hint})` : "";
  // One line whatever the file held: a key or value with a newline or an escape sequence is shown escaped.
  return printable(`${where}: ${d.severity} ${d.code}${field} ${d.message}${hint}`);
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** A diagnostic about the value at `at` (file, line, column and field path come from the source). */
export function diagnosticAt(
  severity: Diagnostic["severity"],
  code: ToolgateCode,
  at: SourceRef,
  message: string,
  hint?: string,
): Diagnostic {
  const d: Diagnostic = {
    severity,
    code,
    message,
    file: at.file,
    line: at.line,
    column: at.column,
    path: at.path,
  };
  if (hint !== undefined) d.hint = hint;
  return d;
}

/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as an argument, and an
 * array of a few hundred thousand (a warning per entry of a large policy) overflows the stack.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
