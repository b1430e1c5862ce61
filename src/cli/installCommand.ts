import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { createTwoFilesPatch } from "diff";
import { resolveConfigDirPath } from "../config/configDir.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { CLIENT_IDS, CLIENTS, defaultConfigFile, isClientId, type ClientId } from "./install/clients.js";
import { applyChanges, type ToolgateLauncher } from "./install/entryEdits.js";
import { checkWritable, resolveConfigTarget, type ConfigTarget } from "./install/configTarget.js";
import {
  commitInstall,
  readConfigText,
  readRecord,
  recordPaths,
  type InstallRecord,
} from "./install/installRecord.js";
import { commandLineOf, planWraps, sameCommandLine, type PlannedWrap } from "./install/installPlan.js";
import { findServerEntries, type ServerEntry } from "./install/serverEntries.js";
import { ensurePolicy } from "./install/starterPolicies.js";
import { runUninstall } from "./install/uninstall.js";

/** Exit codes shared with `policy init/suggest/import`: 1 = something was not carried over (reported). */
export const INSTALL_EXIT = { ok: 0, partial: 1, badInput: 2 } as const;

interface InstallFlags {
  config?: string;
  dryRun?: boolean;
}

export function registerInstallCommands(program: Command): void {
  program
    .command("install")
    .description(
      `put toolgate wrap, with a starter policy per server, in front of every stdio server of an MCP client (${CLIENT_IDS.join(", ")})`,
    )
    .argument("<client>", CLIENT_IDS.join(" | "))
    .option("--config <file>", "the client's configuration file (default: where the client keeps it)")
    .option("--dry-run", "print the change as a diff and write nothing")
    .action(async (client: string, flags: InstallFlags) => {
      process.exit(await runInstall(client, flags));
    });
  program
    .command("uninstall")
    .description("put back the client's configuration as it was before toolgate install")
    .argument("<client>", CLIENT_IDS.join(" | "))
    .option("--config <file>", "the client's configuration file (default: where the client keeps it)")
    .action((client: string, flags: InstallFlags) => {
      const target = targetFile(client, flags, true);
      process.exit(
        target === null ? INSTALL_EXIT.badInput : runUninstall(target.client, target, toolgateDir()),
      );
    });
}

/**
 * The client and its file, checked: a known client, a file that exists, a link followed to a regular
 * file (configTarget.ts), and, when `writing`, a directory install can write in; else the error, and null.
 */
export function targetFile(
  client: string,
  flags: InstallFlags,
  writing: boolean,
): ({ client: ClientId } & ConfigTarget) | null {
  if (!isClientId(client)) {
    printError(errorText("E_USAGE", `unknown client '${client}'`, `choose one of: ${CLIENT_IDS.join(", ")}`));
    return null;
  }
  const file = resolve(
    flags.config ??
      defaultConfigFile(client, { env: process.env, home: homedir(), platform: process.platform }),
  );
  let target: ConfigTarget | null;
  try {
    target = resolveConfigTarget(file);
    if (target !== null && writing) checkWritable(target);
  } catch (error) {
    printError(describeError(error));
    return null;
  }
  if (target === null) {
    printError(
      errorText(
        "E_USAGE",
        `no ${CLIENTS[client].title} configuration at ${file}`,
        CLIENTS[client].createHint,
      ),
    );
    return null;
  }
  return { client, ...target };
}

export function toolgateDir(): string {
  return resolveConfigDirPath(undefined, process.env, homedir());
}

async function runInstall(client: string, flags: InstallFlags): Promise<number> {
  const target = targetFile(client, flags, flags.dryRun !== true);
  if (target === null) return INSTALL_EXIT.badInput;
  const { file } = target;
  if (target.link) {
    const doing = flags.dryRun === true ? "the change is to" : "editing";
    say(`${target.given} is a symbolic link: ${doing} the file it points to, ${file}`);
  }
  const title = CLIENTS[target.client].title;
  const read = readConfigText(file);
  const own = launcher();
  const found = findServerEntries(file, read.body, own.script);
  if (!found.ok) {
    printError(`${found.message}\n  hint: fix the file, then run toolgate install ${target.client} again\n`);
    return INSTALL_EXIT.badInput;
  }
  const home = toolgateDir();
  const plans = planWraps(found.entries, own, resolve(home, "policies", target.client));
  let failed = report(found.entries);
  if (flags.dryRun === true) {
    for (const plan of plans) {
      say(
        existsSync(plan.policy)
          ? `${plan.entry.name}: keeps its policy ${plan.policy}`
          : `${plan.entry.name}: would write a starter policy to ${plan.policy} from its live catalog`,
      );
    }
    const after = applyChanges(
      read.body,
      plans.map((p) => ({ path: p.entry.path, to: p.wrapped })),
    );
    process.stdout.write(
      after === read.body
        ? ""
        : createTwoFilesPatch(file, file, read.body, after, "now", "after toolgate install", { context: 2 }),
    );
    say(plans.length === 0 ? `nothing to change in ${file}` : `dry run: ${file} is unchanged`);
    return failed ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
  }
  const ready: PlannedWrap[] = [];
  for (const plan of plans) {
    if (await ensurePolicy(plan, file)) ready.push(plan);
    else failed = true;
  }
  if (ready.length === 0) {
    say(`nothing changed in ${file}`);
    return failed ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
  }
  // The host may have written its file while the catalogs were read: edit what is there now, and only
  // entries that still run what was planned.
  const now = readConfigText(file);
  const current = findServerEntries(file, now.body, own.script);
  if (!current.ok) {
    printError(
      errorText(
        "E_USAGE",
        `${file} changed while toolgate read the servers: ${current.message}`,
        "run toolgate install again",
      ),
    );
    return INSTALL_EXIT.badInput;
  }
  const still = ready.filter((plan) => {
    const entry = current.entries.find((e) => samePath(e, plan.entry));
    const same =
      entry !== undefined &&
      entry.verdict.kind === "wrap" &&
      sameCommandLine(commandLineOf(entry), plan.original);
    if (!same)
      say(`${plan.entry.name}: changed while toolgate read its catalog; left as it is (run install again)`);
    return same;
  });
  const after = applyChanges(
    now.body,
    still.map((p) => ({ path: p.entry.path, to: p.wrapped })),
  );
  const paths = recordPaths(home, target.client, file);
  const earlier = readRecord(paths.record);
  const record: InstallRecord = {
    version: 1,
    client: target.client,
    file,
    ...(target.link ? { link: target.given } : {}),
    installedAt: new Date().toISOString(),
    // Exact bytes can be put back only while nothing but install has changed the file.
    originalText:
      earlier === null
        ? now.bom + now.body
        : earlier.installedText === now.bom + now.body
          ? earlier.originalText
          : null,
    installedText: now.bom + after,
    entries: [
      ...(earlier?.entries ?? []),
      ...still.map((p) => ({
        path: p.entry.path,
        name: p.entry.name,
        original: p.original,
        wrapped: p.wrapped,
        policy: p.policy,
      })),
    ],
  };
  try {
    commitInstall(paths, record, earlier, now.bom + after);
  } catch (error) {
    printError(describeError(error));
    return INSTALL_EXIT.badInput;
  }
  say(`wrapped ${still.length} server${still.length === 1 ? "" : "s"} of ${title} in ${file}`);
  say(`the original is kept in ${paths.backup}; toolgate uninstall ${target.client} puts it back`);
  say(`restart ${title} (or start a new session) to use them`);
  return failed || still.length < ready.length ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
}

/** Says what is left alone and what is refused (and why); true when something was refused. */
function report(entries: readonly ServerEntry[]): boolean {
  let refused = false;
  for (const entry of entries) {
    if (entry.verdict.kind === "leave") say(`${entry.name}: left as it is: ${entry.verdict.why}`);
    if (entry.verdict.kind === "refuse") {
      refused = true;
      printError(
        errorText(
          "E_INSTALL_ENTRY",
          `${entry.name} (${entry.where}, line ${entry.line}) is left as it is: ${entry.verdict.why}`,
        ),
      );
    }
  }
  return refused;
}

function samePath(a: ServerEntry, b: ServerEntry): boolean {
  return JSON.stringify(a.path) === JSON.stringify(b.path);
}

/** This Node and this CLI's script, resolved: the host starts the entry with neither on its PATH. */
function launcher(): ToolgateLauncher {
  return { node: process.execPath, script: realpathSync(process.argv[1] ?? "") };
}

function say(text: string): void {
  process.stderr.write(`toolgate: ${text}\n`);
}
