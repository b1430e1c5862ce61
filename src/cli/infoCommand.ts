import { InvalidArgumentError, type Command } from "commander";
import { deadPatternDiagnostics, deadPatterns } from "../engine/policy/explain.js";
import { unmatchedItemDiagnostics } from "../engine/policy/itemViews.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import { capabilityNames, connectUpstream, DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import { addContextOptions, printDiagnostics, type ContextFlags } from "./contextOptions.js";
import { loadContext } from "./contextLoader.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { buildInfoView, infoViewJson, renderInfoView } from "./render/infoView.js";
import { buildItemsView } from "./render/itemsView.js";
import { seenItems } from "./seenItems.js";
import { seenTools } from "./seenTools.js";
import { lookupEnabledServer } from "./serverLookup.js";

interface InfoFlags extends ContextFlags {
  format: "text" | "json";
  timeout: number;
}

/** Bad input (configuration, flags, a server that is not configured or not enabled). */
const EXIT_BAD_INPUT = 2;
/** The server could not be started or reached, or did not list its tools. */
const EXIT_UNREACHABLE = 1;

export function formatOption(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new InvalidArgumentError("expected text or json");
  return value;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1) throw new InvalidArgumentError("expected milliseconds (> 0)");
  return n;
}

/** `toolgate info <server>`: the spec's `.info mcp-server` view for one server, started for the purpose. */
export function registerInfoCommand(program: Command): void {
  const command = program
    .command("info")
    .description(
      "start (or connect to) one MCP server of the configuration directory and show its transport, capabilities, filter layers and the verdict for each tool",
    )
    .argument("<server>", "a server name from mcp.json (enabled in the chosen context)");
  addContextOptions(command)
    .option("--format <format>", "text or json", formatOption, "text")
    .option(
      "--timeout <ms>",
      "bound on the server's start-up and each list page (tools, and resources and prompts for a policy with those sections)",
      milliseconds,
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .action(async (server: string, flags: InfoFlags) => {
      process.exit(await info(server, flags));
    });
}

async function info(name: string, flags: InfoFlags): Promise<number> {
  const context = loadContext(flags);
  if (context === null) return EXIT_BAD_INPUT;
  const { config, selection, policy } = context;
  const found = lookupEnabledServer(config, selection, name);
  if (!found.ok) {
    printError(errorText(found.code, found.message, found.hint));
    return EXIT_BAD_INPUT;
  }
  let filter;
  try {
    filter = serverFilter(config, selection, name, policy);
  } catch (error) {
    printError(describeError(error));
    return EXIT_BAD_INPUT;
  }
  let upstream;
  try {
    upstream = await connectUpstream(found.server, {
      baseDir: context.dir,
      timeoutMs: flags.timeout,
      startupTimeoutMs: flags.timeout,
      // Exact pins are checked against the schema text the server sent, as the gate checks them.
      recordToolsListText: true,
    });
  } catch (error) {
    printError(describeError(error));
    return EXIT_UNREACHABLE;
  }
  try {
    const { names: catalog, seen } = await seenTools(upstream, name, (line) =>
      process.stderr.write(`toolgate: ${line}\n`),
    );
    // Spec: dead patterns are also logged as warnings when the server's catalog is fetched.
    printDiagnostics(deadPatternDiagnostics(name, deadPatterns(filter.layers, catalog)));
    const rules = policy?.compiled.policy ?? null;
    const items =
      rules?.resources === undefined && rules?.prompts === undefined
        ? null
        : buildItemsView(
            name,
            rules,
            filter.gate,
            await seenItems(
              upstream,
              { resources: rules.resources !== undefined, prompts: rules.prompts !== undefined },
              flags.timeout,
            ),
          );
    if (items !== null) printDiagnostics(unmatchedItemDiagnostics(name, items.unmatched));
    const view = buildInfoView({
      server: name,
      transport: found.server.transport,
      capabilities: capabilityNames(upstream.capabilities),
      layers: filter.layers,
      extras: filter.extras,
      catalog,
      seen,
      items,
    });
    process.stdout.write(
      flags.format === "json" ? JSON.stringify(infoViewJson(view), null, 2) + "\n" : renderInfoView(view),
    );
    return 0;
  } catch (error) {
    printError(describeError(error));
    return EXIT_UNREACHABLE;
  } finally {
    await upstream.close();
  }
}
