import type { Diagnostic } from "../engine/model/diagnostics.js";

/**
 * The bounds every YAML and JSON file toolgate reads is held to, before any parser sees it. Nesting: parsers
 * recurse once per level, and V8 answers a stack running out not always with a RangeError (a regular
 * expression compiled near the stack's end aborts the process), so depth is measured with a loop first.
 * Size: parsing keeps every node with its position, about 100 bytes of memory per byte of YAML; a 6 MB
 * policy of 250,000 entries takes 10–20 s and 600 MB on a loaded two-core machine, so 10 MB is allowed and
 * anything larger is refused with a diagnostic instead of exhausting the memory.
 */

export const MAX_NESTING = 256;
export const MAX_FILE_CHARS = 10 * 1024 * 1024;

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** E_FILE_TOO_LARGE for text over MAX_FILE_CHARS, naming the file; else null. */
export function tooLarge(file: string, text: string): Diagnostic | null {
  if (text.length <= MAX_FILE_CHARS) return null;
  return {
    severity: "error",
    code: "E_FILE_TOO_LARGE",
    message: `the file is ${megabytes(text.length)}; toolgate reads YAML and JSON files of at most ${megabytes(MAX_FILE_CHARS)}`,
    file,
    line: 0,
    column: 0,
    path: "",
    hint: "split it, or shorten its lists: one pattern (fs__read_*) stands for many names",
  };
}

/** E_TOO_DEEP at a position. */
export function tooDeep(file: string, where: { line: number; column: number }): Diagnostic {
  return {
    severity: "error",
    code: "E_TOO_DEEP",
    message: `nesting deeper than ${MAX_NESTING} levels`,
    file,
    ...where,
    path: "",
    hint: `flatten the document: toolgate reads at most ${MAX_NESTING} levels of nesting`,
  };
}
