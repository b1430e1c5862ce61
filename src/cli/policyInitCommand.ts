import { addStartupTimeoutOption } from "./optionParsers.js";
import type { Command } from "commander";
import { CONFIG_DIR_HELP } from "./contextOptions.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { resolveTarget } from "./pin/liveTarget.js";
import { existsSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { printable } from "../engine/text/printable.js";
import { starterFromServer } from "./policy/liveStarter.js";
import { starterTestsYaml } from "./policy/starterTests.js";
import { deliverPolicy, outputFree } from "./policy/policyOutput.js";

interface InitFlags {
  startupTimeout: number;
  configDir?: string;
  server?: string;
  serverId?: string;
  output?: string;
  force?: boolean;
}

/**
 * `toolgate policy init -- CMD [ARGS…]` (or `--config-dir D --server S`): reads the server's live catalog
 * and writes a starter policy for it (see starterPolicy.ts) to stdout or `--output` (then starter tests
 * beside it, `<policy>.tests.yaml`, see starterTests.ts); exit 0, 1 when the
 * server could not be reached or read, 2 for bad input.
 */
export function registerPolicyInit(policy: Command): void {
  const init_ = policy.command("init");
  addStartupTimeoutOption(init_)
    .description(
      "write a starter policy from an MCP server's live catalog: read-only tools allowed, the others under approval_required, paths scoped to the directories its command names, its own schema closed and a pin per tool",
    )
    .option("--config-dir <dir>", CONFIG_DIR_HELP)
    .option("--server <name>", "the mcp.json server of the configuration directory to read")
    .option("--server-id <id>", "server_id of the pins (default: as toolgate pin chooses it)")
    .option("--output <file>", "write the policy here instead of stdout (an existing file is kept)")
    .option("--force", "with --output: replace an existing file")
    .argument("[command...]", "the server command and its arguments (after --)")
    .usage("[options] -- <server-command> [args...]  |  --server <name> [--config-dir <dir>] [options]")
    .passThroughOptions()
    .action(async (command: string[], flags: InitFlags) => {
      process.exit(await init(command, flags));
    });
}

async function init(command: string[], flags: InitFlags): Promise<number> {
  if (!outputFree(flags.output, flags.force, "policy init")) return 2;
  const target = resolveTarget(command, flags, "policy init");
  if (target === null) return 2;
  let starter;
  try {
    starter = await starterFromServer(target, flags.serverId ?? flags.server, flags.startupTimeout * 1000);
  } catch (error) {
    printError(describeError(error));
    return 1;
  }
  if (!deliverPolicy(starter.text, flags.output, "a starter policy")) return 2;
  if (flags.output !== undefined) writeStarterTests(flags.output, starter, flags.force === true);
  return 0;
}

/** `<policy>.tests.yaml` beside the policy written (an existing one is kept unless --force). */
function writeStarterTests(
  output: string,
  starter: Awaited<ReturnType<typeof starterFromServer>>,
  force: boolean,
): void {
  const file = testsFileFor(output);
  if (existsSync(file) && !force) {
    process.stderr.write(`toolgate: kept the existing test file ${printable(file)} (--force replaces it)\n`);
    return;
  }
  const text = starterTestsYaml({
    policyRef: basename(output),
    policyPath: output,
    policyText: starter.text,
    tools: starter.catalog.listed,
    rawSchemas: starter.catalog.rawSchemas,
    roots: starter.roots,
  });
  if (text === null) return;
  try {
    writeFileSync(file, text);
  } catch (error) {
    printError(errorText("E_USAGE", `cannot write '${file}': ${(error as Error).message}`));
    return;
  }
  process.stderr.write(
    `toolgate: wrote starter tests to ${printable(file)}; run them with toolgate policy test ${printable(file)} -- <server command>\n`,
  );
}

/** `policy.yaml` → `policy.tests.yaml`; another name gets `.tests.yaml` appended. */
export function testsFileFor(policyFile: string): string {
  return /\.ya?ml$/.test(policyFile)
    ? policyFile.replace(/\.ya?ml$/, ".tests.yaml")
    : `${policyFile}.tests.yaml`;
}
