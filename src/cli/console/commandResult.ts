import { errorText } from "../errorReport.js";

/** What one console command printed, and whether it failed. */
export interface CommandResult {
  text: string;
  ok: boolean;
  /** `.exit`: stop reading input. */
  exit?: boolean;
}

/** Each line followed by a newline. */
export const lines = (...text: string[]): string => text.map((l) => `${l}\n`).join("");

export const ok = (text: string): CommandResult => ({ text, ok: true });

export const failed = (code: string, message: string, hint?: string): CommandResult => ({
  text: errorText(code, message, hint),
  ok: false,
});

export function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}
