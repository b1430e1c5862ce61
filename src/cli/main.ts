import { requestedLogFormat } from "./log/logFormat.js";
import { TOOLGATE_VERSION } from "./version.js";

// `toolgate --version` answers before anything else is loaded: commander and the commands' modules are
// most of a start, and a version check (an installer's, a host's) needs none of them.
const first = process.argv[2];
if (first === "--version" || first === "-V") {
  process.stdout.write(`${TOOLGATE_VERSION}\n`);
} else {
  // Each command's module is loaded only when that command runs (src/cli/program.ts). Only the commands
  // that run as a service take --log-format; every other command prints text for a person.
  const { runProgram } = await import("./program.js");
  const service = first === "wrap" || first === "serve";
  await runProgram(process.argv, service ? requestedLogFormat(process.argv, process.env) : "text");
}
