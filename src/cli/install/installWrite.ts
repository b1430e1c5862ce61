import { describeError, errorText, printError } from "../errorReport.js";
import { CLIENTS, type ClientId } from "./clients.js";
import { applyChanges } from "./entryEdits.js";
import { commandLineOf, sameCommandLine, type PlannedWrap } from "./installPlan.js";
import {
  commitInstall,
  readConfigText,
  readRecord,
  recordPaths,
  type InstallRecord,
} from "./installRecord.js";
import { sayAuditLogs, say } from "./installReport.js";
import { findServerEntries, type ServerEntry } from "./serverEntries.js";

/** Exit codes shared with `policy init/suggest/import`: 1 = something was not carried over (reported). */
export const INSTALL_EXIT = { ok: 0, partial: 1, badInput: 2 } as const;

export interface WriteInstall {
  client: ClientId;
  file: string;
  /** The link install was given, when the file was reached through one. */
  link: string | null;
  toolgateDir: string;
  ownScript: string;
  /** The entries whose policies are in place, to be wrapped. */
  ready: readonly PlannedWrap[];
  /** Audit log folders already there that other users can open. */
  openFolders: readonly string[];
  /** Whether an entry was already left out (reported). */
  failed: boolean;
}

/**
 * The last step of `toolgate install`, after the policies are written: the client's file, edited as it
 * is now, with the record that lets uninstall undo it. Returns the exit status.
 */
export function writeInstall(w: WriteInstall): number {
  // The host may have written its file while the catalogs were read: edit what is there now, and only
  // entries that still run what was planned.
  const now = readConfigText(w.file);
  const current = findServerEntries(w.file, now.body, w.ownScript);
  if (!current.ok) {
    printError(
      errorText(
        "E_USAGE",
        `${w.file} changed while toolgate read the servers: ${current.message}`,
        "run toolgate install again",
      ),
    );
    return INSTALL_EXIT.badInput;
  }
  const still = w.ready.filter((plan) => {
    const entry = current.entries.find((e) => samePath(e, plan.entry));
    const same =
      entry !== undefined &&
      entry.verdict.kind === "wrap" &&
      sameCommandLine(commandLineOf(entry), plan.original);
    if (!same)
      say(`${plan.entry.name}: changed while toolgate read its catalog; left as it is (run install again)`);
    return same;
  });
  const after = applyChanges(
    now.body,
    still.map((p) => ({ path: p.entry.path, to: p.wrapped })),
  );
  const paths = recordPaths(w.toolgateDir, w.client, w.file);
  const earlier = readRecord(paths.record);
  const record: InstallRecord = {
    version: 1,
    client: w.client,
    file: w.file,
    ...(w.link === null ? {} : { link: w.link }),
    installedAt: new Date().toISOString(),
    // Exact bytes can be put back only while nothing but install has changed the file.
    originalText:
      earlier === null
        ? now.bom + now.body
        : earlier.installedText === now.bom + now.body
          ? earlier.originalText
          : null,
    installedText: now.bom + after,
    entries: [
      ...(earlier?.entries ?? []),
      ...still.map((p) => ({
        path: p.entry.path,
        name: p.entry.name,
        original: p.original,
        wrapped: p.wrapped,
        policy: p.policy,
        auditLog: p.auditLog,
      })),
    ],
  };
  try {
    commitInstall(paths, record, earlier, now.bom + after);
  } catch (error) {
    printError(describeError(error));
    return INSTALL_EXIT.badInput;
  }
  const title = CLIENTS[w.client].title;
  say(`wrapped ${still.length} server${still.length === 1 ? "" : "s"} of ${title} in ${w.file}`);
  sayAuditLogs(still, w.openFolders, "logs");
  say(`the original is kept in ${paths.backup}; toolgate uninstall ${w.client} puts it back`);
  say(`restart ${title} (or start a new session) to use them`);
  return w.failed || still.length < w.ready.length ? INSTALL_EXIT.partial : INSTALL_EXIT.ok;
}

function samePath(a: ServerEntry, b: ServerEntry): boolean {
  return JSON.stringify(a.path) === JSON.stringify(b.path);
}
