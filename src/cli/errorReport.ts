import { ToolgateError } from "../engine/errors.js";
import { printable } from "../engine/text/printable.js";
import { logFormat, logLine } from "./log/stderrLog.js";

/** `error CODE: message`, then `  hint: …` when there is a hint; each line ends in a newline. */
export function errorText(code: string, message: string, hint?: string): string {
  return (
    `error ${code}: ${printable(message)}\n` + (hint === undefined ? "" : `  hint: ${printable(hint)}\n`)
  );
}

/** Any error as errorText; errors without a code are E_INTERNAL. */
export function describeError(error: unknown): string {
  if (error instanceof ToolgateError) return errorText(error.code, error.message, error.hint);
  return errorText("E_INTERNAL", error instanceof Error ? error.message : String(error));
}

/** On stderr, the first line prefixed with `toolgate: ` (with `--log-format json`, one JSON line). */
export function printError(text: string): void {
  if (logFormat() === "text") process.stderr.write(`toolgate: ${text}`);
  else logLine(text.trimEnd());
}
