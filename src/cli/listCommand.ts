import { join } from "node:path";
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
    // Every server ✗ is most often a config.yaml without enabled_mcp_servers: say so, as serve and info do.
    if (rows.length > 0 && rows.every((r) => !r.enabled)) {
      process.stderr.write(
        `toolgate: no server is enabled in this context\n  hint: set \`enabled_mcp_servers: [${rows[0]!.name}]\` (or \`all\`) in ${join(config.dir, "config.yaml")}, or enable servers in the role, agent or skill\n`,
      );
    }
    return 0;
  } catch (error) {
    printError(describeError(error));
    return 2;
  }
}
