import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parseTree,
  type FormattingOptions,
  type JSONPath,
} from "jsonc-parser";
import type { EntryPath } from "./serverEntries.js";

/**
 * Minimal in-place edits of a host's configuration file: only an entry's `command` and `args` values are
 * replaced; every other byte (comments, key order, the host's own state in the same file) stays as it
 * was. Pure.
 */

/** The command line an entry runs: `args` absent is kept absent when it is restored. */
export interface CommandLine {
  command: string;
  args?: string[];
}

export interface EntryChange {
  path: EntryPath;
  to: CommandLine;
}

/** How toolgate itself is started: this Node binary and the CLI script, both absolute (hosts run with a short PATH). */
export interface ToolgateLauncher {
  node: string;
  script: string;
}

/** The entry's command line run through `toolgate wrap` with its policy, logging each decision. */
export function wrappedCommandLine(
  launcher: ToolgateLauncher,
  files: { policy: string; auditLog: string },
  original: CommandLine,
): CommandLine {
  return {
    command: launcher.node,
    args: [
      launcher.script,
      "wrap",
      "--policy",
      files.policy,
      "--audit-log",
      files.auditLog,
      "--",
      original.command,
      ...(original.args ?? []),
    ],
  };
}

/** Applies the changes one by one, each re-located in the text the previous one left. */
export function applyChanges(text: string, changes: readonly EntryChange[]): string {
  const formattingOptions = formattingOf(text);
  let out = text;
  for (const change of changes) {
    out = setValue(out, [...change.path, "command"], change.to.command, formattingOptions);
    out = setValue(out, [...change.path, "args"], change.to.args, formattingOptions);
  }
  return out;
}

/** A value written on one line stays on one line (`["a", "b"]`); anything else is laid out as the file is. */
function setValue(
  text: string,
  path: JSONPath,
  value: unknown,
  formattingOptions: FormattingOptions,
): string {
  const node = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, path);
  const old = node === undefined ? "" : text.slice(node.offset, node.offset + node.length);
  if (node !== undefined && value !== undefined && !old.includes("\n")) {
    const line = Array.isArray(value)
      ? `[${value.map((v) => JSON.stringify(v)).join(", ")}]`
      : JSON.stringify(value);
    return text.slice(0, node.offset) + line + text.slice(node.offset + node.length);
  }
  return applyEdits(text, modify(text, path, value, { formattingOptions }));
}

/** The file's own indentation and line ends, so inserted lines look like their neighbours. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}
