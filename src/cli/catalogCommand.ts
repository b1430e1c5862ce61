import { printUnknownServer } from "./pin/liveTarget.js";
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import { catalogJson } from "../config/catalogFile.js";
import { CONFIG_DIR_HELP } from "./contextOptions.js";
import { loadContext } from "./contextLoader.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { addStartupTimeoutOption } from "./optionParsers.js";
import type { CatalogTarget } from "./pin/liveCatalog.js";
import { configTargets, readCatalogs } from "./policy/liveCatalogs.js";

interface SaveFlags {
  output: string;
  configDir?: string;
  server?: string;
  startupTimeout: number;
}

/**
 * `toolgate catalog save --output FILE [--config-dir D [--server S] | -- CMD]`: the servers' tools as
 * `tools/list` gives them, saved for `policy test --catalog` (config/catalogFile.ts). Exit 0; 1 when a
 * server cannot be reached or read; 2 for bad input.
 */
export function registerCatalogCommand(program: Command): void {
  const catalog = program
    .command("catalog")
    .description("save MCP servers' tool catalogs for offline policy tests");
  const save = catalog.command("save");
  addStartupTimeoutOption(save)
    .description(
      "list the tools of a server (-- CMD) or of the servers of a configuration directory and write them to a catalog file",
    )
    .requiredOption("--output <file>", "the catalog file to write (JSON)")
    .option("--config-dir <dir>", CONFIG_DIR_HELP)
    .option(
      "--server <name>",
      "only this mcp.json server; with -- CMD: the name the catalog gives the server",
    )
    .argument("[command...]", "the server command and its arguments (after --)")
    .usage(
      "--output FILE [--config-dir <dir> [--server <name>]] | --output FILE [--server <name>] -- <server-command> [args...]",
    )
    .passThroughOptions()
    .action(async (command: string[], flags: SaveFlags) => {
      process.exit(await saveCatalog(command, flags));
    });
}

async function saveCatalog(command: string[], flags: SaveFlags): Promise<number> {
  const targets = catalogTargets(command, flags);
  if (targets === null) return 2;
  let text: string;
  try {
    text = catalogJson(await readCatalogs(targets, flags.startupTimeout * 1000));
  } catch (error) {
    printError(describeError(error));
    return 1;
  }
  try {
    writeFileSync(flags.output, text);
  } catch (error) {
    printError(errorText("E_CATALOG_FILE", `cannot write '${flags.output}': ${(error as Error).message}`));
    return 2;
  }
  const names = targets.map((t) => t.name).join(", ");
  process.stderr.write(`toolgate: saved the catalog of ${names} to ${flags.output}\n`);
  return 0;
}

/** The servers to read: the command after --, or the configuration directory's servers (or the one named). */
export function catalogTargets(
  command: readonly string[],
  flags: { configDir?: string; server?: string },
): CatalogTarget[] | null {
  const [program, ...args] = command;
  if (program !== undefined) {
    if (flags.configDir !== undefined) {
      printError(errorText("E_USAGE", "give either --config-dir or a command after --, not both"));
      return null;
    }
    // Like `wrap -- CMD`: the command runs with this process's environment and working directory.
    return [
      {
        transport: "stdio",
        name: flags.server ?? basename(program),
        command: program,
        args,
        env: { ...process.env },
      },
    ];
  }
  const context = loadContext(
    { skill: [], ...(flags.configDir === undefined ? {} : { configDir: flags.configDir }) },
    false,
  );
  if (context === null) return null;
  const targets = configTargets(context.config, flags.server);
  if (flags.server !== undefined && targets.length === 0) {
    printUnknownServer(context.config, flags.server);
    return null;
  }
  if (targets.length === 0) {
    printError(errorText("E_USAGE", `no MCP server is configured in ${context.config.mcp.file}`));
    return null;
  }
  return targets;
}
