import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { connectUpstream } from "../upstream/upstream.js";
import { completeLine } from "./console/completion.js";
import { ConsoleSession } from "./console/consoleSession.js";
import { addContextOptions, type ContextFlags } from "./contextOptions.js";
import { loadContext } from "./contextLoader.js";
import { printableLines } from "../engine/text/printable.js";

interface ConsoleFlags extends ContextFlags {
  echo?: boolean;
}

const HISTORY_FILE = ".console_history";
const HISTORY_SIZE = 1000;

/**
 * `toolgate console`: the spec's dot commands over a configuration directory. Interactive on a terminal (line
 * editing, history, tab completion); with piped input, one output block per input line and no prompt.
 *
 * Output: what a command prints, its errors included, goes to stdout in input order; logs (server start-up,
 * dead-pattern warnings, the servers' own stderr when they fail) go to stderr. Exit status: 2 when the
 * configuration cannot be used; with piped input, 1 when any command failed, else 0; interactively 0.
 */
export function registerConsoleCommand(program: Command): void {
  const command = program
    .command("console")
    .description(
      "interactive console over the configuration directory with dot commands (.info mcp-server, .list mcp-servers, .info tools, .set mcp_tools…, .mcp enable|disable, .role, .agent, .session, .skill, .node); also reads piped input",
    );
  addContextOptions(command)
    .option(
      "--echo",
      "print each input line after a `> ` prompt before its output (for transcripts of piped input)",
    )
    .action(async (flags: ConsoleFlags) => {
      process.exit(await runConsole(flags));
    });
}

function readHistory(file: string): string[] {
  try {
    const entries = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
    // readline wants the newest first.
    return entries.slice(-HISTORY_SIZE).reverse();
  } catch {
    return [];
  }
}

async function runConsole(flags: ConsoleFlags): Promise<number> {
  // The console may start a new session (its `.set` commands then create the file).
  const context = loadContext(flags, true, { newSessions: true });
  if (context === null) return 2;
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const started = context.selection.session;
  if (started !== undefined && context.config.sessions.get(started)?.exists === false) {
    log(`session '${started}' is new: it has no layer until \`.set mcp_tools.<server> …\` gives it one`);
  }
  const session = new ConsoleSession({
    config: context.config,
    selection: context.selection,
    policy: context.policy,
    connect: (server) =>
      connectUpstream(server, { baseDir: context.dir, stderr: "pipe", recordToolsListText: true }),
    log,
  });

  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  // Before readline exists: lines it read while nobody iterated would be lost. Piped input waits in the pipe.
  await session.start();
  const historyFile = join(context.dir, HISTORY_FILE);
  let historyWritable = interactive;
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
    prompt: "toolgate> ",
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    ...(interactive
      ? {
          history: readHistory(historyFile),
          completer: (line: string) => completeLine(line, session.completionContext()),
        }
      : {}),
  });
  if (interactive) {
    rl.on("SIGINT", () => {
      // Ctrl-C drops the line being typed; leaving is .exit or Ctrl-D.
      process.stdout.write("^C\n");
      rl.write(null, { ctrl: true, name: "u" });
      rl.prompt();
    });
  }

  if (interactive) {
    process.stdout.write("toolgate console: .help lists the commands, .exit or Ctrl-D leaves\n");
    rl.prompt();
  }

  let anyFailed = false;
  let exited = false;
  try {
    for await (const line of rl) {
      if (!interactive && flags.echo === true && line.trim() !== "") process.stdout.write(`> ${line}\n`);
      if (historyWritable && line.trim() !== "") {
        try {
          appendFileSync(historyFile, `${line}\n`);
        } catch (error) {
          historyWritable = false;
          log(
            `toolgate: history is kept in memory only: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      const result = await session.run(line);
      process.stdout.write(printableLines(result.text));
      if (!result.ok) anyFailed = true;
      if (result.exit === true) {
        exited = true;
        break;
      }
      if (interactive) rl.prompt();
    }
  } finally {
    rl.close();
    await session.close();
  }
  // Ctrl-D leaves the cursor after the prompt.
  if (interactive && !exited) process.stdout.write("\n");
  return !interactive && anyFailed ? 1 : 0;
}
