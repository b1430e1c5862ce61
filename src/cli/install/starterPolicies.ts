import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { describeError, errorText, printError } from "../errorReport.js";
import { starterPolicyFromServer } from "../policy/liveStarter.js";
import { lstatOrNull, writeAtomically } from "./atomicWrite.js";
import { catalogTarget, type PlannedWrap } from "./installPlan.js";

/**
 * What install does about one entry's policy: keep the one there (it may have been reviewed), or write a
 * starter one whose text is already made from the server's live catalog.
 */
export type PolicyStep = { kind: "keep" } | { kind: "starter"; text: string };

/**
 * Decides an entry's policy the same way for `install` and `install --dry-run`: an existing policy is
 * kept; otherwise the server is started as the client would start it and its live catalog read. Nothing
 * is written here, so a dry run reports exactly the failures the install would. `null` when the entry is
 * to be left as it is (reported on stderr with `E_INSTALL_ENTRY` and the cause).
 */
export async function decidePolicy(
  plan: PlannedWrap,
  file: string,
  /** `--startup-timeout`: how long the server may take to start while its catalog is read. */
  startupTimeoutMs?: number,
): Promise<PolicyStep | null> {
  let there;
  try {
    there = lstatOrNull(plan.policy);
  } catch (error) {
    leftAsItIs(plan, file, "its policy path cannot be read", error);
    return null;
  }
  if (there !== null && existsSync(plan.policy)) return { kind: "keep" };
  if (there !== null) {
    // A link to nothing: writing the starter policy through it would create a file wherever it points.
    printError(
      errorText(
        "E_INSTALL_ENTRY",
        `${plan.entry.name} (${file}:${plan.entry.line}) is left as it is: its policy path ${plan.policy} is a symbolic link to a file that does not exist`,
        "remove the link, or point it at a policy, then run toolgate install again",
      ),
    );
    return null;
  }
  try {
    return {
      kind: "starter",
      text: await starterPolicyFromServer(catalogTarget(plan, file), undefined, startupTimeoutMs),
    };
  } catch (error) {
    leftAsItIs(plan, file, "its catalog could not be read", error);
    return null;
  }
}

/** Writes what {@link decidePolicy} decided; false (reported) when the starter policy cannot be written. */
export function applyPolicy(plan: PlannedWrap, step: PolicyStep, file: string): boolean {
  if (step.kind === "keep") {
    say(`${plan.entry.name}: keeps its policy ${plan.policy}`);
    return true;
  }
  try {
    mkdirSync(dirname(plan.policy), { recursive: true });
    writeAtomically(plan.policy, step.text);
  } catch (error) {
    leftAsItIs(plan, file, "its starter policy could not be written", error);
    return false;
  }
  say(`${plan.entry.name}: wrote a starter policy to ${plan.policy}; review it`);
  return true;
}

function leftAsItIs(plan: PlannedWrap, file: string, why: string, error: unknown): void {
  printError(
    errorText("E_INSTALL_ENTRY", `${plan.entry.name} (${file}:${plan.entry.line}) is left as it is: ${why}`),
  );
  printError(describeError(error));
}

function say(text: string): void {
  process.stderr.write(`toolgate: ${text}\n`);
}
