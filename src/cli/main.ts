import { Command, CommanderError } from "commander";
import { registerConsoleCommand } from "./consoleCommand.js";
import { registerAuditCommand } from "./auditCommand.js";
import { registerPinCommand } from "./pinCommand.js";
import { registerInfoCommand } from "./infoCommand.js";
import { registerListCommand } from "./listCommand.js";
import { registerPolicyCommands } from "./policyCommands.js";
import { registerServeCommand } from "./serveCommand.js";
import { registerWrapCommand } from "./wrapCommand.js";

const program = new Command("toolgate")
  .description("MCP tool-policy gateway: which tools a model can see and call, with which arguments")
  .version("0.1.0")
  .showHelpAfterError()
  .enablePositionalOptions()
  // Usage mistakes are bad input: exit 2 like every other bad input, not commander's default 1.
  .exitOverride();

registerPolicyCommands(program);
registerWrapCommand(program);
registerInfoCommand(program);
registerListCommand(program);
registerServeCommand(program);
registerConsoleCommand(program);
registerAuditCommand(program);
registerPinCommand(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    const benign =
      err.code === "commander.helpDisplayed" ||
      err.code === "commander.version" ||
      err.code === "commander.help";
    process.exit(benign ? 0 : 2);
  }
  process.stderr.write(`toolgate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
