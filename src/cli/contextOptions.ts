import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { Option, type Command } from "commander";
import { loadConfigDir, resolveConfigDirPath } from "../config/configDir.js";
import type { ConfigDir, ContextSelection } from "../config/configDirModel.js";
import { formatDiagnostic, hasErrors, type Diagnostic } from "../config/diagnostics.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { compilePolicy } from "../policy/compile.js";
import type { ActivePolicy } from "../policy/policyLayer.js";

/**
 * The flags that choose a configuration directory and what is active in it, shared by `info`, `list`,
 * `console`, `wrap --config-dir` and `serve`, and the loading they imply.
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

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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
  for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + "\n");
}

/** Loads and compiles the policy at `location` (diagnostics printed); "unusable" on errors (fail closed). */
export function loadActivePolicy(location: PolicyLocation | null): ActivePolicy | null | "unusable" {
  if (location === null) return null;
  const { policy, diagnostics } = loadPolicyFile(location.path);
  printDiagnostics(diagnostics);
  if (policy === null) {
    const origin = location.from === "flag" ? "--policy" : "config.yaml's policy:";
    process.stderr.write(`toolgate: the policy '${location.shown}' (${origin}) cannot be used\n`);
    return "unusable";
  }
  return { compiled: compilePolicy(policy), shownPath: location.shown };
}

export interface LoadedContext {
  dir: string;
  config: ConfigDir;
  selection: ContextSelection;
  policy: ActivePolicy | null;
}

/**
 * Resolves and loads the directory with the selection, then the policy. Every diagnostic goes to stderr with
 * file and line; null when anything has an error (the caller exits 2).
 */
export function loadContext(flags: ContextFlags, withPolicy = true): LoadedContext | null {
  const dir = resolveConfigDirPath(flags.configDir, process.env, homedir());
  const selection = selectionOf(flags);
  const { config, diagnostics } = loadConfigDir(dir, selection);
  printDiagnostics(diagnostics);
  if (hasErrors(diagnostics)) {
    process.stderr.write(`toolgate: the configuration in ${dir} has errors (see above)\n`);
    return null;
  }
  const policy = withPolicy ? loadActivePolicy(policyLocation(config, flags.policy)) : null;
  if (policy === "unusable") return null;
  return { dir, config, selection, policy };
}
