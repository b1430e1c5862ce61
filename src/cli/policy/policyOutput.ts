import { existsSync, writeFileSync } from "node:fs";
import { printable } from "../../engine/text/printable.js";
import { errorText, printError } from "../errorReport.js";

/** Exit codes of `toolgate policy …` (documented in docs/policy-files.md and docs/cli.md). */
export const POLICY_EXIT = { ok: 0, denied: 1, needsMigration: 1, badInput: 2 } as const;

/**
 * Where `policy init`, `suggest` and `import` put the policy they write: stdout, or `--output`, which is
 * kept when it exists unless `--force` (a reviewed policy must not be overwritten by accident).
 */

/** `false`, with the refusal printed (E_USAGE), when `--output` exists and `--force` was not given. */
export function outputFree(output: string | undefined, force: boolean | undefined, verb: string): boolean {
  if (output === undefined || !existsSync(output) || force === true) return true;
  printError(
    errorText(
      "E_USAGE",
      `'${output}' exists; toolgate ${verb} keeps it`,
      "choose another --output, or add --force to replace it",
    ),
  );
  return false;
}

/** The policy to stdout, or to `output` with a line saying so; `false` (printed) when it cannot be written. */
export function deliverPolicy(text: string, output: string | undefined, what: string): boolean {
  if (output === undefined) {
    process.stdout.write(text);
    return true;
  }
  try {
    writeFileSync(output, text);
  } catch (error) {
    printError(errorText("E_USAGE", `cannot write '${output}': ${(error as Error).message}`));
    return false;
  }
  process.stderr.write(`toolgate: wrote ${what} to ${printable(output)}; review it before you rely on it\n`);
  return true;
}
