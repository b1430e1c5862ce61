import { join } from "node:path";
import type { StdioServerConfig } from "../../engine/model/mcpServers.js";
import { isJsonObject } from "../../engine/rpc/jsonRpc.js";
import { targetFromConfig, type CatalogTarget } from "../pin/liveCatalog.js";
import { wrappedCommandLine, type CommandLine, type ToolgateLauncher } from "./entryEdits.js";
import type { ServerEntry } from "./serverEntries.js";

/**
 * What `toolgate install` will do with each entry of one file: for an entry to wrap, its policy file and
 * its audit log (one each per entry, under the toolgate directory) and its new command line. Pure.
 */
export interface PlannedWrap {
  entry: ServerEntry;
  original: CommandLine;
  wrapped: CommandLine;
  policy: string;
  auditLog: string;
}

/** Where one client's policies and audit logs go: `<toolgate dir>/policies/<client>`, `…/audit/<client>`. */
export interface PlanDirs {
  policies: string;
  audit: string;
}

export function commandLineOf(entry: ServerEntry): CommandLine {
  const args = entry.value.args;
  return {
    command: String(entry.value.command),
    ...(Array.isArray(args) ? { args: args.map(String) } : {}),
  };
}

export function sameCommandLine(a: CommandLine, b: CommandLine): boolean {
  return a.command === b.command && JSON.stringify(a.args ?? null) === JSON.stringify(b.args ?? null);
}

/**
 * One policy file per entry: `<dir>/<server>.yaml`, or `<server>@<project>.yaml` for a Claude Code
 * project's own entry; a name two entries would share gets `-2`, `-3`, …. The audit log has the same
 * name with `.jsonl`, so a policy and the log of the decisions it made are found by one name.
 */
export function planWraps(
  entries: readonly ServerEntry[],
  launcher: ToolgateLauncher,
  dirs: PlanDirs,
): PlannedWrap[] {
  const taken = new Set<string>();
  return entries
    .filter((e) => e.verdict.kind === "wrap")
    .map((entry) => {
      const project = entry.path[0] === "projects" ? lastSegment(entry.path[1] ?? "") : "";
      const stem = safeName(project === "" ? entry.name : `${entry.name}@${project}`);
      let name = stem;
      for (let n = 2; taken.has(name); n++) name = `${stem}-${n}`;
      taken.add(name);
      const policy = join(dirs.policies, `${name}.yaml`);
      const auditLog = join(dirs.audit, `${name}.jsonl`);
      const original = commandLineOf(entry);
      return {
        entry,
        original,
        wrapped: wrappedCommandLine(launcher, { policy, auditLog }, original),
        policy,
        auditLog,
      };
    });
}

/**
 * How the host would start the entry, to read its catalog: the hosts' default environment plus the
 * entry's `env`, in the entry's `cwd`, else (a Claude Code project's entry) in the project directory.
 */
export function catalogTarget(plan: PlannedWrap, file: string): CatalogTarget {
  const value = plan.entry.value;
  const env = isJsonObject(value.env)
    ? Object.fromEntries(
        Object.entries(value.env).filter((e): e is [string, string] => typeof e[1] === "string"),
      )
    : {};
  const project = plan.entry.path[0] === "projects" ? (plan.entry.path[1] ?? null) : null;
  const server: StdioServerConfig = {
    transport: "stdio",
    name: plan.entry.name,
    at: { file, line: plan.entry.line, column: 1, path: plan.entry.path.join(".") },
    allowedTools: null,
    allowedToolsAt: null,
    command: plan.original.command,
    args: plan.original.args ?? [],
    env,
    cwd: typeof value.cwd === "string" ? value.cwd : project,
  };
  return targetFromConfig(server, project ?? process.cwd());
}

function lastSegment(path: string): string {
  return (
    path
      .split(/[\\/]/)
      .filter((s) => s !== "")
      .pop() ?? ""
  );
}

function safeName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._@-]/g, "_").replace(/^[.]+/, "_");
  return safe === "" ? "server" : safe;
}
