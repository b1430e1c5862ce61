import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { ToolgateError } from "../../engine/errors.js";
import { writeAtomically } from "./atomicWrite.js";
import type { ClientId } from "./clients.js";
import type { CommandLine } from "./entryEdits.js";
import type { EntryPath } from "./serverEntries.js";

/**
 * What `toolgate install` changed in one configuration file, kept so `toolgate uninstall` can put it
 * back: the file's bytes before and after, and each entry's command line before and after. Stored under
 * the toolgate directory (`install/<client>-<digest of the file's path>.json`), with a plain copy of the
 * original file beside it. `file` is the file install edited: for a client file reached through a
 * symbolic link, the link's target, and `link` the link's path.
 */
export interface InstallRecord {
  version: 1;
  client: ClientId;
  file: string;
  /** The symbolic link install was given, when the file was reached through one (the link is left as it is). */
  link?: string;
  installedAt: string;
  /** The file before the first install; `null` once the file changed between two installs (then only entries are restored). */
  originalText: string | null;
  /** The file as install last wrote it. */
  installedText: string;
  entries: RecordedEntry[];
}

export interface RecordedEntry {
  path: EntryPath;
  name: string;
  original: CommandLine;
  wrapped: CommandLine;
  policy: string;
  /** Where the wrapped entry logs its decisions; absent in records of installs before audit logs. */
  auditLog?: string;
}

export function recordPaths(
  toolgateDir: string,
  client: ClientId,
  file: string,
): { record: string; backup: string } {
  const digest = createHash("sha256").update(file).digest("hex").slice(0, 16);
  const base = join(toolgateDir, "install", `${client}-${digest}`);
  return { record: `${base}.json`, backup: `${base}.original` };
}

export function readRecord(path: string): InstallRecord | null {
  if (!existsSync(path)) return null;
  const value = JSON.parse(readFileSync(path, "utf8")) as InstallRecord;
  if (value.version !== 1 || !Array.isArray(value.entries)) {
    throw new Error(`${path} is not an install record this toolgate can read`);
  }
  return value;
}

export function writeRecord(paths: { record: string; backup: string }, record: InstallRecord): void {
  mkdirSync(dirname(paths.record), { recursive: true, mode: 0o700 });
  // The host's file can hold credentials (env, headers): the copies are as private as a 0600 file.
  if (record.originalText !== null && !existsSync(paths.backup))
    writeAtomically(paths.backup, record.originalText, 0o600);
  writeAtomically(paths.record, `${JSON.stringify(record, null, 2)}\n`, 0o600);
}

export function removeRecord(paths: { record: string; backup: string }): void {
  rmSync(paths.record, { force: true });
  rmSync(paths.backup, { force: true });
}

/** Reads the file without a byte-order mark (the editor's offsets), and says whether it had one. */
export function readConfigText(file: string): { bom: string; body: string } {
  const raw = readFileSync(file, "utf8");
  return raw.startsWith("\uFEFF") ? { bom: "\uFEFF", body: raw.slice(1) } : { bom: "", body: raw };
}

/**
 * The record, then the client's file: a file rewritten without a record could not be undone. When the
 * file cannot be written, the record goes back to what it was (none, or the earlier install's), so it
 * never describes a change that did not happen; the error says which file and why.
 */
export function commitInstall(
  paths: { record: string; backup: string },
  record: InstallRecord,
  earlier: InstallRecord | null,
  text: string,
): void {
  try {
    // Without an earlier record, a copy of an original left beside it (a run that stopped half-way) is stale.
    if (earlier === null) rmSync(paths.backup, { force: true });
    writeRecord(paths, record);
  } catch (error) {
    // The record is replaced whole or not at all; only a first install's copy of the original can be left.
    if (earlier === null) {
      try {
        rmSync(paths.backup, { force: true });
      } catch {
        // Its directory is what failed: no copy was written there.
      }
    }
    throw writeError(`the install record ${paths.record}`, error, `${record.file} is unchanged`);
  }
  try {
    writeAtomically(record.file, text);
  } catch (error) {
    let outcome = "it is unchanged";
    try {
      if (earlier === null) removeRecord(paths);
      else writeRecord(paths, earlier);
    } catch (undo) {
      outcome += `; the install record could not be put back (${(undo as Error).message}): remove ${paths.record} before you run toolgate uninstall`;
    }
    throw writeError(record.file, error, outcome);
  }
}

/** A failed write as `E_INSTALL_WRITE`, naming the file; toolgate's own coded errors pass through. */
export function writeError(what: string, error: unknown, outcome: string): ToolgateError {
  if (error instanceof ToolgateError) return error;
  return new ToolgateError(
    "E_INSTALL_WRITE",
    `cannot write ${what}: ${(error as Error).message}; ${outcome}`,
    "make the file and its directory writable for this user (or free space), then run the command again",
  );
}
