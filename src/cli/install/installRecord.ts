import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ClientId } from "./clients.js";
import type { CommandLine } from "./entryEdits.js";
import type { EntryPath } from "./serverEntries.js";

/**
 * What `toolgate install` changed in one configuration file, kept so `toolgate uninstall` can put it
 * back: the file's bytes before and after, and each entry's command line before and after. Stored under
 * the toolgate directory (`install/<client>-<digest of the file's path>.json`), with a plain copy of the
 * original file beside it.
 */
export interface InstallRecord {
  version: 1;
  client: ClientId;
  file: string;
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
 * Writes through a temporary file in the same directory and a rename, so a reader (the host, running)
 * sees the old file or the new one, never half of one. The mode is the old file's, else `mode`.
 */
export function writeAtomically(file: string, text: string, mode = 0o644): void {
  const keep = existsSync(file) ? statSync(file).mode & 0o777 : mode;
  const temp = join(dirname(file), `.${basename(file)}.toolgate-${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { mode: keep });
    chmodSync(temp, keep);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
