import type { Command } from "commander";
import { buildServerList } from "../engine/policy/enabledServers.js";
import { policyHasNameRules } from "../engine/policy/policyLayer.js";
import { addContextOptions, type ContextFlags } from "./contextOptions.js";
import { loadContext } from "./contextLoader.js";
import { describeError, printError } from "./errorReport.js";
import { formatOption } from "./infoCommand.js";
import { listViewJson, renderListView } from "./render/listView.js";

interface ListFlags extends ContextFlags {
  format: "text" | "json";
}

/** `toolgate list`: the spec's `.list mcp-servers` view. Starts no server. */
export function registerListCommand(program: Command): void {
  const command = program
    .command("list")
    .description(
      "list the configured MCP servers and aliases: ✓ enabled in the chosen context, ✗ not, [filtered] with an active filter layer (starts no server)",
    );
  addContextOptions(command)
    .option("--format <format>", "text or json", formatOption, "text")
    .action((flags: ListFlags) => {
      process.exit(list(flags));
    });
}

function list(flags: ListFlags): number {
  const context = loadContext(flags);
  if (context === null) return 2;
  const { config, selection, policy } = context;
  const policyFilters = policy !== null && policyHasNameRules(policy.compiled.policy);
  try {
    const rows = buildServerList(config, selection, () => policyFilters);
    process.stdout.write(
      flags.format === "json" ? JSON.stringify(listViewJson(rows), null, 2) + "\n" : renderListView(rows),
    );
    return 0;
  } catch (error) {
    printError(describeError(error));
    return 2;
  }
}
