import { addStartupTimeoutOption, DEFAULT_STARTUP_TIMEOUT_S } from "./optionParsers.js";
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { resolveConfigDirPath } from "../config/configDir.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { ensureAuditFolder } from "./install/auditFolder.js";
import { CLIENT_IDS, CLIENTS, defaultConfigFile, isClientId, type ClientId } from "./install/clients.js";
import type { ToolgateLauncher } from "./install/entryEdits.js";
import { checkWritable, resolveConfigTarget, type ConfigTarget } from "./install/configTarget.js";
import { readConfigText } from "./install/installRecord.js";
import { planWraps, type PlannedWrap } from "./install/installPlan.js";
import { printDryRun, say, type DecidedWrap } from "./install/installReport.js";
import { INSTALL_EXIT, writeInstall } from "./install/installWrite.js";
import { findServerEntries, type ServerEntry } from "./install/serverEntries.js";
import { applyPolicy, decidePolicy } from "./install/starterPolicies.js";
import { runUninstall } from "./install/uninstall.js";

export { INSTALL_EXIT } from "./install/installWrite.js";

interface InstallFlags {
  config?: string;
  dryRun?: boolean;
  startupTimeout?: number;
}

export function registerInstallCommands(program: Command): void {
  addStartupTimeoutOption(program.command("install"))
    .description(
      `put toolgate wrap, with a starter policy and an audit log per server, in front of every stdio server of an MCP client (${CLIENT_IDS.join(", ")})`,
    )
    .argument("<client>", CLIENT_IDS.join(" | "))
    .option("--config <file>", "the client's configuration file (default: where the client keeps it)")
    .option(
      "--dry-run",
      "start each server and read its catalog as install does, print the files it would write as diffs, and write nothing",
    )
    .action(async (client: string, flags: InstallFlags) => {
      process.exit(await runInstall(client, flags));
    });
  program
    .command("uninstall")
    .description("put back the client's configuration as it was before toolgate install")
    .argument("<client>", CLIENT_IDS.join(" | "))
    .option("--config <file>", "the client's configuration file (default: where the client keeps it)")
    .action((client: string, flags: InstallFlags) => {
      const target = targetFile(client, flags);
      process.exit(
        target === null ? INSTALL_EXIT.badInput : runUninstall(target.client, target, toolgateDir()),
      );
    });
}

/**
 * The client and its file, checked: a known client, a file that exists, a link followed to a regular
 * file (configTarget.ts), in a directory install can write in (a dry run checks it too, as it predicts
 * the install); else the error, and null.
 */
export function targetFile(
  client: string,
  flags: InstallFlags,
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
    if (target !== null) checkWritable(target);
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

/**
 * The install and its dry run take one path up to the first write: the same checks of the client's file
 * (that it can be written, too), the same servers started and catalogs read, the same audit folder
 * checks. A dry run then prints what it would write, so it fails where the install would, with the same
 * messages and exit status.
 */
async function runInstall(client: string, flags: InstallFlags): Promise<number> {
  const dryRun = flags.dryRun === true;
  const target = targetFile(client, flags);
  if (target === null) return INSTALL_EXIT.badInput;
  const { file } = target;
  if (target.link) {
    const doing = dryRun ? "the change is to" : "editing";
    say(`${target.given} is a symbolic link: ${doing} the file it points to, ${file}`);
  }
  const read = readConfigText(file);
  const own = launcher();
  const found = findServerEntries(file, read.body, own.script);
  if (!found.ok) {
    printError(`${found.message}\n  hint: fix the file, then run toolgate install ${target.client} again\n`);
    return INSTALL_EXIT.badInput;
  }
  const home = toolgateDir();
  const dirs = {
    policies: resolve(home, "policies", target.client),
    audit: resolve(home, "audit", target.client),
  };
  const plans = planWraps(found.entries, own, dirs);
  let failed = report(found.entries);
  const decided: DecidedWrap[] = [];
  for (const plan of plans) {
    const policy = await decidePolicy(plan, file, (flags.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_S) * 1000);
    if (policy === null) failed = true;
    else decided.push({ plan, policy });
  }
  let auditFolder = { made: [] as string[], open: [] as string[] };
  if (decided.length > 0) {
    try {
      auditFolder = ensureAuditFolder(dirs.audit, !dryRun);
    } catch (error) {
      printError(describeError(error));
      return INSTALL_EXIT.badInput;
    }
  }
  if (dryRun) {
    printDryRun(file, read.body, decided, auditFolder);
    return failed ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
  }
  const ready: PlannedWrap[] = [];
  for (const { plan, policy } of decided) {
    if (applyPolicy(plan, policy, file)) ready.push(plan);
    else failed = true;
  }
  if (ready.length === 0) {
    say(`nothing changed in ${file}`);
    return failed ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
  }
  return writeInstall({
    client: target.client,
    file,
    link: target.link ? target.given : null,
    toolgateDir: home,
    ownScript: own.script,
    ready,
    openFolders: auditFolder.open,
    failed,
  });
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

/** This Node and this CLI's script, resolved: the host starts the entry with neither on its PATH. */
function launcher(): ToolgateLauncher {
  return { node: process.execPath, script: realpathSync(process.argv[1] ?? "") };
}
