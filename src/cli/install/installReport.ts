import { createTwoFilesPatch } from "diff";
import { modeText } from "./auditFolder.js";
import { applyChanges } from "./entryEdits.js";
import type { PlannedWrap } from "./installPlan.js";
import type { PolicyStep } from "./starterPolicies.js";

/** An entry install will wrap: its plan, and what it does about the policy (decided, nothing written). */
export interface DecidedWrap {
  plan: PlannedWrap;
  policy: PolicyStep;
}

/**
 * What `toolgate install --dry-run` prints once every server has been started and read, exactly as the
 * install does: on stdout each file it would write as a diff (each new starter policy, then the client's
 * file, with only the entries that would be wrapped), and on stderr each entry's policy and audit log.
 */
export function printDryRun(
  file: string,
  body: string,
  decided: readonly DecidedWrap[],
  auditFolder: { made: string[]; open: string[] },
): void {
  for (const { plan, policy } of decided) {
    if (policy.kind === "keep") {
      say(`${plan.entry.name}: keeps its policy ${plan.policy}`);
      continue;
    }
    say(`${plan.entry.name}: would write a starter policy to ${plan.policy}, from its live catalog`);
    process.stdout.write(
      createTwoFilesPatch("/dev/null", plan.policy, "", policy.text, "", "starter policy", { context: 2 }),
    );
  }
  const after = applyChanges(
    body,
    decided.map((d) => ({ path: d.plan.entry.path, to: d.plan.wrapped })),
  );
  if (after !== body)
    process.stdout.write(
      createTwoFilesPatch(file, file, body, after, "now", "after toolgate install", { context: 2 }),
    );
  if (decided.length === 0) {
    say(`nothing to change in ${file}`);
    return;
  }
  if (auditFolder.made.length > 0)
    say(`would make ${auditFolder.made.join(" and ")} (mode 0700) for the audit logs`);
  sayAuditLogs(
    decided.map((d) => d.plan),
    auditFolder.open,
    "would log",
  );
  say(`dry run: nothing was written; ${file} is unchanged`);
}

/**
 * Where each wrapped entry logs its decisions, and how to use the logs; a folder others can open is
 * named with its mode (the logs hold tool arguments).
 */
export function sayAuditLogs(
  plans: readonly PlannedWrap[],
  open: readonly string[],
  verb: "logs" | "would log",
): void {
  for (const plan of plans) say(`${plan.entry.name}: ${verb} every decision to ${plan.auditLog}`);
  for (const folder of open)
    say(
      `${folder} is mode ${modeText(folder)}: other users can read the audit logs in it; chmod 700 ${folder} keeps them private`,
    );
  const first = plans[0]?.auditLog;
  if (first !== undefined)
    say(
      `after some work, toolgate policy suggest --from-audit ${first} proposes an allowlist of the tools really called; toolgate audit verify checks a log's hash chain`,
    );
}

export function say(text: string): void {
  process.stderr.write(`toolgate: ${text}\n`);
}
