import { Command, CommanderError } from "commander";
import { logEntry, logError, setLogFormat } from "./log/stderrLog.js";
import type { LogFormat } from "./log/logFormat.js";
import { TOOLGATE_VERSION } from "./version.js";

type Register = (program: Command) => void;

/**
 * Each command's module is loaded only when that command runs (the bundle splits them into chunks), so
 * `toolgate wrap` does not pay at start-up for the SDK, the console or the HTTP gateway.
 */
const installCommands = async (): Promise<Register> =>
  (await import("./installCommand.js")).registerInstallCommands;

const COMMANDS: Record<string, () => Promise<Register>> = {
  policy: async () => (await import("./policyCommands.js")).registerPolicyCommands,
  wrap: async () => (await import("./wrapCommand.js")).registerWrapCommand,
  info: async () => (await import("./infoCommand.js")).registerInfoCommand,
  list: async () => (await import("./listCommand.js")).registerListCommand,
  serve: async () => (await import("./serveCommand.js")).registerServeCommand,
  console: async () => (await import("./consoleCommand.js")).registerConsoleCommand,
  audit: async () => (await import("./auditCommand.js")).registerAuditCommand,
  replay: async () => (await import("./replayCommand.js")).registerReplayCommand,
  pin: async () => (await import("./pinCommand.js")).registerPinCommand,
  approve: async () => (await import("./approveCommand.js")).registerApproveCommand,
  dashboard: async () => (await import("./dashboardCommand.js")).registerDashboardCommand,
  catalog: async () => (await import("./catalogCommand.js")).registerCatalogCommand,
  install: installCommands,
  uninstall: installCommands,
};

/** Parses the command line and runs the command; usage mistakes exit 2, like every other bad input. */
export async function runProgram(argv: string[], format: LogFormat): Promise<void> {
  setLogFormat(format);
  try {
    await run(argv, format);
  } catch (err: unknown) {
    if (err instanceof CommanderError) {
      const benign =
        err.code === "commander.helpDisplayed" ||
        err.code === "commander.version" ||
        err.code === "commander.help";
      process.exit(benign ? 0 : 2);
    }
    const message = err instanceof Error ? err.message : String(err);
    logEntry({ level: "error", code: "E_INTERNAL", message }, `toolgate: ${message}\n`);
    process.exit(2);
  }
}

async function run(argv: string[], format: LogFormat): Promise<void> {
  const program = new Command("toolgate")
    .description("MCP tool-policy gateway: which tools a model can see and call, with which arguments")
    .version(TOOLGATE_VERSION)
    .enablePositionalOptions()
    // Usage mistakes are bad input: exit 2 like every other bad input, not commander's default 1.
    .exitOverride();
  if (format === "json") {
    // A usage error is one JSON line like every other line; the help text is for a person, not a pipeline.
    program.configureOutput({
      outputError: (text) => logError("E_USAGE", text.replace(/^error: /, "").trim()),
    });
  } else program.showHelpAfterError();
  const named = argv[2];
  // A known command loads alone; anything else (help, a typo, no command) needs every command listed.
  const chosen = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  // One module may register several commands (install and uninstall): each module once.
  const loaders = [...new Set(chosen.map((name) => COMMANDS[name]!))];
  for (const register of await Promise.all(loaders.map((load) => load()))) register(program);
  await program.parseAsync(argv);
}
