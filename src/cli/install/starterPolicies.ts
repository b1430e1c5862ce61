import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { describeError, errorText, printError } from "../errorReport.js";
import { starterPolicyFromServer } from "../policy/liveStarter.js";
import { lstatOrNull, writeAtomically } from "./atomicWrite.js";
import { catalogTarget, type PlannedWrap } from "./installPlan.js";

/** A policy per entry: kept when it exists (it may have been reviewed), else a starter one from the live catalog. */
export async function ensurePolicy(plan: PlannedWrap, file: string): Promise<boolean> {
  let there;
  try {
    there = lstatOrNull(plan.policy);
  } catch (error) {
    return leftAsItIs(plan, file, "its policy path cannot be read", error);
  }
  if (there !== null && existsSync(plan.policy)) {
    say(`${plan.entry.name}: keeps its policy ${plan.policy}`);
    return true;
  }
  if (there !== null) {
    // A link to nothing: writing the starter policy through it would create a file wherever it points.
    printError(
      errorText(
        "E_INSTALL_ENTRY",
        `${plan.entry.name} (${file}:${plan.entry.line}) is left as it is: its policy path ${plan.policy} is a symbolic link to a file that does not exist`,
        "remove the link, or point it at a policy, then run toolgate install again",
      ),
    );
    return false;
  }
  let text: string;
  try {
    text = await starterPolicyFromServer(catalogTarget(plan, file));
  } catch (error) {
    return leftAsItIs(plan, file, "its catalog could not be read", error);
  }
  try {
    mkdirSync(dirname(plan.policy), { recursive: true });
    writeAtomically(plan.policy, text);
  } catch (error) {
    return leftAsItIs(plan, file, "its starter policy could not be written", error);
  }
  say(`${plan.entry.name}: wrote a starter policy to ${plan.policy}; review it`);
  return true;
}

function leftAsItIs(plan: PlannedWrap, file: string, why: string, error: unknown): false {
  printError(
    errorText("E_INSTALL_ENTRY", `${plan.entry.name} (${file}:${plan.entry.line}) is left as it is: ${why}`),
  );
  printError(describeError(error));
  return false;
}

function say(text: string): void {
  process.stderr.write(`toolgate: ${text}\n`);
}
