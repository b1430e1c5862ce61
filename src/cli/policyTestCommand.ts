import { basename } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { asPolicyCatalog, loadCatalogFile, type PolicyCatalog } from "../config/catalogFile.js";
import type { ConfigDir } from "../engine/model/configDir.js";
import { hasErrors } from "../engine/model/diagnostics.js";
import { ToolgateError } from "../engine/errors.js";
import { runPolicyTests, type PolicyTestOptions } from "../session/policyTestRun.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { CONFIG_DIR_HELP, printDiagnostics } from "./contextOptions.js";
import { errorText, printError } from "./errorReport.js";
import { addStartupTimeoutOption } from "./optionParsers.js";
import { configTargets, readCatalogs } from "./policy/liveCatalogs.js";
import {
  renderJson,
  renderJunit,
  renderText,
  totalsOf,
  type FileResults,
} from "./render/policyTestReport.js";

type Format = "text" | "junit" | "json";

interface TestFlags {
  policy?: string;
  configDir?: string;
  tokens?: string;
  catalog?: string;
  server?: string;
  format: Format;
  startupTimeout: number;
}

/** 0: every case passed; 1: a case failed; 2: bad input (a test file, a context, a catalog that cannot be used). */
const EXIT = { ok: 0, failed: 1, badInput: 2 } as const;

function formatOption(value: string): Format {
  if (value !== "text" && value !== "junit" && value !== "json") {
    throw new InvalidArgumentError("expected text, junit or json");
  }
  return value;
}

/**
 * `toolgate policy test CASES... [--catalog FILE | -- CMD]`: runs the cases of each test file in-process on
 * the gate's own decision functions (session/policyTestRun.ts) and reports the failures.
 */
export function registerPolicyTest(policy: Command): void {
  const test = policy.command("test");
  addStartupTimeoutOption(test)
    .description(
      "run policy test files (cases of calls and tools/list with what must come out) against a policy over a saved or live catalog; exit 1 when a case fails",
    )
    .argument("<cases...>", "test files (YAML); after --, the server command to read the catalog from")
    .option("--policy <file>", "the policy to test; wins over the test file's policy:")
    .option("--config-dir <dir>", `${CONFIG_DIR_HELP}; wins over the test file's config_dir:`)
    .option("--tokens <file>", "the tokens file whose entries context: {token: NAME} names")
    .option("--catalog <file>", "a catalog saved by toolgate catalog save (else the live servers)")
    .option(
      "--server <name>",
      "with -- CMD: the name the server has in the cases (default: the command's name)",
    )
    .option("--format <format>", "text, junit or json", formatOption, "text")
    .usage("[options] CASES... [-- <server-command> [args...]]")
    .action(async (args: string[], flags: TestFlags) => {
      process.exit(await runTests(args, flags));
    });
}

async function runTests(args: string[], flags: TestFlags): Promise<number> {
  // Commander hands over the files and the command after -- as one list; the command is what follows --.
  const argv = process.argv.slice(2);
  const dash = argv.indexOf("--");
  const command = dash === -1 ? [] : argv.slice(dash + 1);
  const files = args.slice(0, args.length - command.length);
  if (files.length === 0) {
    printError(errorText("E_USAGE", "give at least one test file", "toolgate policy test policy.tests.yaml"));
    return EXIT.badInput;
  }
  if (flags.catalog !== undefined && command.length > 0) {
    printError(errorText("E_USAGE", "give either --catalog or a server command after --, not both"));
    return EXIT.badInput;
  }
  const catalog = catalogSource(command, flags);
  if (catalog === null) return EXIT.badInput;
  const options: PolicyTestOptions = {
    catalog,
    realpath: localRealpath(),
    ...(flags.policy === undefined ? {} : { policy: flags.policy }),
    ...(flags.configDir === undefined ? {} : { configDir: flags.configDir }),
    ...(flags.tokens === undefined ? {} : { tokens: flags.tokens }),
  };
  const done: FileResults[] = [];
  let bad = false;
  for (const file of files) {
    const run = await runPolicyTests(file, options);
    if (!run.ok) {
      printDiagnostics(run.diagnostics);
      bad ||= hasErrors(run.diagnostics);
      continue;
    }
    printDiagnostics(run.warnings);
    done.push({ file: run.file, policy: run.policy, results: run.results });
  }
  const render = flags.format === "junit" ? renderJunit : flags.format === "json" ? renderJson : renderText;
  process.stdout.write(render(done));
  const totals = totalsOf(done);
  if (bad || totals.errors > 0) return EXIT.badInput;
  return totals.failed > 0 ? EXIT.failed : EXIT.ok;
}

/** The catalog file, the command's live catalog (read once), or the configuration's live servers. */
function catalogSource(command: readonly string[], flags: TestFlags): PolicyTestOptions["catalog"] | null {
  if (flags.catalog !== undefined) {
    const { servers, diagnostics } = loadCatalogFile(flags.catalog);
    printDiagnostics(diagnostics);
    return servers === null ? null : asPolicyCatalog(servers);
  }
  const startupMs = flags.startupTimeout * 1000;
  const [program, ...args] = command;
  if (program !== undefined) {
    const name = flags.server ?? basename(program);
    let read: Promise<PolicyCatalog> | undefined;
    return () =>
      (read ??= readCatalogs(
        [{ transport: "stdio", name, command: program, args, env: { ...process.env } }],
        startupMs,
      ));
  }
  return async (config: ConfigDir | null) => {
    if (config === null) {
      throw new ToolgateError(
        "E_CATALOG_FILE",
        "no catalog: the test file names no configuration directory whose servers could be listed",
        "pass --catalog FILE (toolgate catalog save), a server command after --, or --config-dir",
      );
    }
    return readCatalogs(configTargets(config), startupMs);
  };
}
