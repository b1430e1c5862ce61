import { Command } from "commander";
import { registerPolicyCommands } from "./policyCommands.js";

const program = new Command("toolgate")
  .description("MCP tool-policy gateway: which tools a model can see and call, with which arguments")
  .version("0.1.0")
  .showHelpAfterError()
  .enablePositionalOptions();

registerPolicyCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`toolgate: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
});
