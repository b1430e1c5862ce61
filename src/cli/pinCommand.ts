import { writeFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import { CONFIG_DIR_HELP } from "./contextOptions.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { readLiveCatalog, type LiveCatalog } from "./pin/liveCatalog.js";
import { defaultServerId, resolveTarget } from "./pin/liveTarget.js";
import { pinCatalog, renderPinsJson, renderPinsYaml, type PinnedCatalog } from "./pin/pinBlock.js";

interface PinFlags {
  configDir?: string;
  server?: string;
  serverId?: string;
  output?: string;
  format: "yaml" | "json";
  timeout: number;
}

/** Pins printed (or written). */
const EXIT_OK = 0;
/** The server could not be started or reached, did not list its tools, or listed tools that cannot be pinned. */
const EXIT_UNREACHABLE = 1;
/** Bad flags or configuration. */
const EXIT_BAD_INPUT = 2;

/**
 * `toolgate pin -- CMD [ARGS…]` / `toolgate pin --server S [--config-dir D]`: starts (or reaches) the
 * server, reads its whole live catalog and prints a `tool_pins` block for a policy file.
 */
export function registerPinCommand(program: Command): void {
  program
    .command("pin")
    .description(
      "read an MCP server's live tool catalog and print a tool_pins block (schema_hash, meta_hash, and exact_schema_hash where a schema holds integers beyond 2^53) for a policy file",
    )
    .option("--config-dir <dir>", CONFIG_DIR_HELP)
    .option(
      "--server <name>",
      "without a command: pin this mcp.json server of the configuration directory (stdio, http or sse); " +
        "with a command after --: the server's name, written as server_id (its mcp.json name for serve, or wrap's --label)",
    )
    .option(
      "--server-id <id>",
      "server_id written in each pin (default: the --server name; for a command without --server, the name the " +
        "server gives itself, which wrap without --server or --label binds the pins to)",
    )
    .option("--output <file>", "write the block to this file instead of stdout")
    .option(
      "--format <format>",
      "yaml (a tool_pins block to paste into a policy) or json",
      formatOption,
      "yaml",
    )
    .option(
      "--timeout <ms>",
      "bound on the server's start-up and on each tools/list page",
      milliseconds,
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .argument("[command...]", "the server command and its arguments (after --)")
    .usage("[options] -- <server-command> [args...]  |  --server <name> [--config-dir <dir>] [options]")
    .passThroughOptions()
    .action(async (command: string[], flags: PinFlags) => {
      process.exit(await pin(command, flags));
    });
}

async function pin(command: string[], flags: PinFlags): Promise<number> {
  const target = resolveTarget(command, flags, "pin");
  if (target === null) return EXIT_BAD_INPUT;

  let catalog: LiveCatalog;
  try {
    catalog = await readLiveCatalog(target, flags.timeout);
  } catch (error) {
    printError(describeError(error));
    return EXIT_UNREACHABLE;
  }
  if (!catalog.hasTools) {
    process.stderr.write(
      `toolgate: MCP server '${target.name}' does not declare the tools capability; no tools to pin\n`,
    );
  }

  const serverId = flags.serverId ?? flags.server ?? defaultServerId(catalog, target);
  let pinned: PinnedCatalog;
  try {
    pinned = pinCatalog(catalog.tools, catalog.rawSchemas, serverId);
  } catch (error) {
    printError(describeError(error));
    return EXIT_UNREACHABLE;
  }

  const info = catalog.serverInfo;
  const exact = pinned.pins.filter(([, p]) => p.exact_schema_hash !== undefined).length;
  const summary =
    `${pinned.pins.length} tool${pinned.pins.length === 1 ? "" : "s"} of server_id ${JSON.stringify(serverId)}` +
    (info.name === ""
      ? ""
      : ` (the server calls itself ${JSON.stringify(`${info.name} ${info.version}`.trim())})`) +
    (exact === 0 ? "" : `; ${exact} with exact_schema_hash (integers beyond 2^53)`);
  const text =
    flags.format === "json"
      ? renderPinsJson(pinned)
      : renderPinsYaml(pinned, [
          `toolgate pin: ${summary}`,
          "Review what changed before replacing pins: a changed hash is a changed tool definition.",
        ]);

  if (flags.output === undefined) {
    process.stdout.write(text);
    return EXIT_OK;
  }
  try {
    writeFileSync(flags.output, text);
  } catch (error) {
    printError(errorText("E_PIN_OUTPUT", `cannot write '${flags.output}': ${(error as Error).message}`));
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`toolgate: wrote ${summary} to ${flags.output}\n`);
  return EXIT_OK;
}

function formatOption(value: string): "yaml" | "json" {
  if (value !== "yaml" && value !== "json") throw new InvalidArgumentError("expected yaml or json");
  return value;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1) throw new InvalidArgumentError("expected milliseconds (> 0)");
  return n;
}
