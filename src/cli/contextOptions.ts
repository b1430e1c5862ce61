import { isAbsolute, join } from "node:path";
import { logDiagnostic } from "./log/stderrLog.js";
import { Option, type Command } from "commander";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import { collect } from "./optionParsers.js";

/**
 * The flags that choose a configuration directory and what is active in it, shared by `info`, `list`,
 * `console`, `wrap --config-dir` and `serve` (loading them is contextLoader.ts).
 */
export interface ContextFlags {
  configDir?: string;
  role?: string;
  agent?: string;
  session?: string;
  skill: string[];
  node?: string;
  policy?: string;
}

export const CONFIG_DIR_HELP =
  "configuration directory (default: $TOOLGATE_CONFIG_DIR, else ~/.config/toolgate)";
export const POLICY_FLAG_HELP =
  "policy file; wins over config.yaml's `policy:` key (whose path is relative to the directory)";

/** Adds --config-dir, --role, --agent, --session, --skill…, --node (and --policy unless `withPolicy` is false). */
export function addContextOptions(command: Command, withPolicy = true): Command {
  command
    .option("--config-dir <dir>", CONFIG_DIR_HELP)
    .option("--role <name>", "active role (roles/<name>.md)")
    .option("--agent <name>", "active agent (agents/<name>/config.yaml or graph.yaml)")
    .option("--session <name>", "active session (sessions/<name>.yaml)")
    .addOption(
      new Option("--skill <name>", "load a skill (skills/<name>/SKILL.md); repeatable, in load order")
        .argParser(collect)
        .default([], "none"),
    )
    .option("--node <id>", "active node of the graph agent");
  if (withPolicy) command.option("--policy <file>", POLICY_FLAG_HELP);
  return command;
}

export function selectionOf(flags: ContextFlags): ContextSelection {
  const selection: ContextSelection = { skills: [...flags.skill] };
  if (flags.role !== undefined) selection.role = flags.role;
  if (flags.agent !== undefined) selection.agent = flags.agent;
  if (flags.session !== undefined) selection.session = flags.session;
  if (flags.node !== undefined) selection.node = flags.node;
  return selection;
}

/** True when any flag that selects something in a directory was given (for commands where that needs a directory). */
export function hasSelectionFlags(flags: ContextFlags): boolean {
  return (
    flags.role !== undefined ||
    flags.agent !== undefined ||
    flags.session !== undefined ||
    flags.node !== undefined ||
    flags.skill.length > 0
  );
}

export interface PolicyLocation {
  /** Where to read it. */
  path: string;
  /** How it is shown (`policy (<shown>)`): as written on the command line or in config.yaml. */
  shown: string;
  from: "flag" | "config.yaml";
}

/** `--policy` wins; else config.yaml's `policy:`, relative to the configuration directory; else none. */
export function policyLocation(config: ConfigDir | null, flag: string | undefined): PolicyLocation | null {
  if (flag !== undefined) return { path: flag, shown: flag, from: "flag" };
  const written = config?.global.policy;
  if (written === undefined || written === null) return null;
  const path = isAbsolute(written.path) ? written.path : join(config!.dir, written.path);
  return { path, shown: written.path, from: "config.yaml" };
}

export function printDiagnostics(diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) logDiagnostic(d);
}
