import { basename } from "node:path";
import { unknownServerHint, type ConfigDir } from "../../engine/model/configDir.js";
import { loadContext } from "../contextLoader.js";
import { errorText, printError } from "../errorReport.js";
import { targetFromConfig, type CatalogTarget, type LiveCatalog } from "./liveCatalog.js";

/**
 * The server_id `toolgate pin -- CMD` writes when given neither --server nor --server-id: the name in the
 * server's initialize answer (the command's basename when it gives none), a record of which server was
 * pinned. It is never matched against what a server says later: wrap without --server or --label binds pins
 * to the only server they name, and serve matches mcp.json names (write those with --server NAME).
 */
export function defaultServerId(catalog: LiveCatalog, target: CatalogTarget): string {
  if (catalog.serverInfo.name !== "") return catalog.serverInfo.name;
  return target.transport === "stdio" ? basename(target.command) : target.name;
}

export function resolveTarget(
  command: readonly string[],
  flags: { configDir?: string; server?: string },
  verb: string,
): CatalogTarget | null {
  const [program, ...args] = command;
  if (program !== undefined) {
    if (flags.configDir !== undefined && flags.server === undefined) {
      printError(
        errorText("E_USAGE", "--config-dir needs --server <name>; or give only the command after --"),
      );
      return null;
    }
    // Like `wrap -- CMD`: the command runs with this process's environment and working directory.
    return {
      transport: "stdio",
      name: flags.server ?? basename(program),
      command: program,
      args,
      env: { ...process.env },
    };
  }
  if (flags.server === undefined) {
    printError(
      errorText(
        "E_USAGE",
        `${verb} needs the server command after -- (toolgate ${verb} -- CMD ARGS…) or --server <name> of the configuration directory`,
      ),
    );
    return null;
  }
  const context = loadContext(
    { skill: [], ...(flags.configDir === undefined ? {} : { configDir: flags.configDir }) },
    false,
  );
  if (context === null) return null;
  const server = context.config.mcp.servers.find((s) => s.name === flags.server);
  if (server === undefined) {
    printUnknownServer(context.config, flags.server);
    return null;
  }
  return targetFromConfig(server, context.dir);
}

/** E_UNKNOWN_SERVER: `name` is not an entry of the configuration's mcp.json, with the names it has. */
export function printUnknownServer(config: ConfigDir, name: string): void {
  const servers = config.mcp.servers.map((s) => s.name);
  printError(
    errorText(
      "E_UNKNOWN_SERVER",
      `MCP server '${name}' is not in ${config.mcp.file}`,
      unknownServerHint(config, name, servers),
    ),
  );
}
