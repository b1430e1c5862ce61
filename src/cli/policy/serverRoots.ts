import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import type { CatalogTarget } from "../pin/liveCatalog.js";

/**
 * The directories a server was given to work in, as the starter policy scopes its path arguments to them.
 *
 * MCP has no way to ask a server for its roots: server-filesystem takes them as command-line arguments
 * (and, from a client that offers MCP roots, replaces them with the client's), and reports them through its
 * own `list_allowed_directories` tool; other servers take a `--repository DIR` or the like. So they are
 * read from the command, the one thing every stdio server has: each argument (or the value of a
 * `--flag=value`) that names an existing directory, `~` expanded and a relative one resolved against the
 * server's working directory, as server-filesystem reads them. A directory reached through a symbolic link
 * is listed both as written and resolved (server-filesystem accepts both forms too). A remote server's
 * roots are on another machine: none are read.
 *
 * Over-reading is the safe side: a directory argument that is not a root (`uv --directory SRC run …`) only
 * widens the scope to it, and the generated file names the argument each root came from, for review.
 */

export interface ServerRoot {
  /** Absolute and normalized. */
  path: string;
  /** Where it came from, for the policy's comment: `argument 2 of the server's command`. */
  from: string;
}

export function serverRoots(target: CatalogTarget): ServerRoot[] {
  if (target.transport !== "stdio") return [];
  const cwd = target.cwd ?? process.cwd();
  const roots: ServerRoot[] = [];
  const seen = new Set<string>();
  const add = (path: string, from: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    roots.push({ path, from });
  };
  target.args.forEach((arg, i) => {
    const value = /^--?[^=]+=/.test(arg) ? arg.slice(arg.indexOf("=") + 1) : arg;
    const path = directoryOf(value, cwd);
    if (path === null) return;
    const from = `argument ${i + 1} of the server's command`;
    add(path, from);
    const real = realpathOrNull(path);
    if (real !== null && real !== path) add(real, `${from}, its symbolic links resolved`);
  });
  return roots;
}

/** The absolute directory an argument names, or `null` when it names none (a flag, a file, a word). */
function directoryOf(arg: string, cwd: string): string | null {
  if (arg === "" || arg.startsWith("-") || arg.includes("\0")) return null;
  const expanded = arg === "~" ? homedir() : arg.startsWith("~/") ? `${homedir()}${arg.slice(1)}` : arg;
  const path = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  try {
    return statSync(path).isDirectory() ? path : null;
  } catch {
    return null;
  }
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
