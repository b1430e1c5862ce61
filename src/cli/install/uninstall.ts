import { existsSync } from "node:fs";
import { describeError, errorText, printError } from "../errorReport.js";
import { writeAtomically } from "./atomicWrite.js";
import { CLIENTS, type ClientId } from "./clients.js";
import type { ConfigTarget } from "./configTarget.js";
import { applyChanges, type EntryChange } from "./entryEdits.js";
import { commandLineOf, sameCommandLine } from "./installPlan.js";
import {
  readConfigText,
  readRecord,
  recordPaths,
  removeRecord,
  writeError,
  writeRecord,
  type RecordedEntry,
} from "./installRecord.js";
import { findServerEntries } from "./serverEntries.js";

/**
 * `toolgate uninstall <client>`: the file's original bytes when nothing but install has changed it since;
 * otherwise each wrapped entry's command line put back where it still is as install left it. An entry
 * changed since (by a person or the host) is not touched, and said; its record is kept for another try.
 * Policies stay where they are (they may have been reviewed), and so do audit logs (the evidence of what
 * was done). A file reached through a symbolic link is restored where the link points, as install edited
 * it there. Exit 0, 1 (something not restored), 2.
 */
export function runUninstall(client: ClientId, target: ConfigTarget, toolgateDir: string): number {
  const { file } = target;
  if (target.link) say(`${target.given} is a symbolic link: restoring the file it points to, ${file}`);
  try {
    return restore(client, file, toolgateDir);
  } catch (error) {
    printError(describeError(error));
    return 2;
  }
}

function restore(client: ClientId, file: string, toolgateDir: string): number {
  const paths = recordPaths(toolgateDir, client, file);
  let record;
  try {
    record = readRecord(paths.record);
  } catch (error) {
    printError(errorText("E_USAGE", (error as Error).message, "remove it, then restore the file by hand"));
    return 2;
  }
  if (record === null) {
    printError(
      errorText(
        "E_USAGE",
        `toolgate install ${client} has not changed ${file}`,
        `no record at ${paths.record}`,
      ),
    );
    return 2;
  }
  const title = CLIENTS[client].title;
  const now = readConfigText(file);
  if (record.originalText !== null && now.bom + now.body === record.installedText) {
    write(file, record.originalText);
    removeRecord(paths);
    say(`${file} is back as it was before toolgate install, byte for byte`);
    sayPolicies(record.entries, title);
    return 0;
  }
  const found = findServerEntries(file, now.body);
  if (!found.ok) {
    printError(`${found.message}\n  hint: fix the file, then run toolgate uninstall ${client} again\n`);
    return 2;
  }
  const changes: EntryChange[] = [];
  const kept: RecordedEntry[] = [];
  for (const entry of record.entries) {
    const there = found.entries.find((e) => JSON.stringify(e.path) === JSON.stringify(entry.path));
    if (there === undefined) {
      say(`${entry.name}: no longer in the file; nothing to put back`);
    } else if (sameCommandLine(commandLineOf(there), entry.wrapped)) {
      changes.push({ path: entry.path, to: entry.original });
    } else {
      kept.push(entry);
      printError(
        errorText(
          "E_INSTALL_ENTRY",
          `${entry.name} (line ${there.line}) changed since toolgate install; left as it is`,
          `its command line before install was ${JSON.stringify(entry.original)}`,
        ),
      );
    }
  }
  if (changes.length > 0) write(file, now.bom + applyChanges(now.body, changes));
  try {
    if (kept.length === 0) removeRecord(paths);
    else
      writeRecord(paths, {
        ...record,
        originalText: null,
        installedText: now.bom + applyChanges(now.body, changes),
        entries: kept,
      });
  } catch (error) {
    throw writeError(
      `the install record ${paths.record}`,
      error,
      `${file} has its entries back; remove the record by hand before another uninstall`,
    );
  }
  say(
    `put back ${changes.length} server entr${changes.length === 1 ? "y" : "ies"} in ${file}; the rest of the file is as it is now`,
  );
  sayPolicies(record.entries, title);
  return kept.length === 0 ? 0 : 1;
}

/** The client's file, restored; on failure `E_INSTALL_WRITE` and nothing changed (the record stays). */
function write(file: string, text: string): void {
  try {
    writeAtomically(file, text);
  } catch (error) {
    throw writeError(file, error, "it is unchanged, and the install record is kept");
  }
}

/** The policies (they may have been reviewed) and the audit logs (a record of what was done) stay. */
function sayPolicies(entries: readonly RecordedEntry[], title: string): void {
  const files = [...new Set(entries.map((e) => e.policy))];
  if (files.length > 0)
    say(`the policies stay (${files.join(", ")}); restart ${title} to use the servers directly`);
  const logs = [...new Set(entries.flatMap((e) => (e.auditLog === undefined ? [] : [e.auditLog])))];
  const kept = logs.filter((log) => existsSync(log));
  if (kept.length > 0)
    say(
      `the audit logs stay, as the record of what the servers were asked (${kept.join(", ")}); remove them yourself when they are no longer needed`,
    );
}

function say(text: string): void {
  process.stderr.write(`toolgate: ${text}\n`);
}
