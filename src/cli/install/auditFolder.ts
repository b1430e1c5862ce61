import { lstatSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ToolgateError } from "../../engine/errors.js";
import { lstatOrNull } from "./atomicWrite.js";

/**
 * The folder of one client's audit logs, `<toolgate dir>/audit/<client>`, made before any entry names a
 * log in it (wrap opens its log for appending and does not make folders). A decision log says which
 * tools the agent called, when, and why each was allowed or refused (arguments only as digests, or
 * redacted), which is nobody else's business: `audit/` and `audit/<client>/` are created `0700`, and
 * wrap creates each log `0600`. A folder that is already there is used as it is, since a person
 * may have opened it to a collector on purpose; install only says when others can read it. A link or a
 * file in its place, or a folder of another user, is refused (`E_INSTALL_WRITE`): the logs would be
 * written wherever it leads, or where someone else can read and replace them.
 *
 * With `make` false (a dry run) the same checks run and nothing is made. Returns what to say: the
 * folders it made (or would make), and any already there that others can open.
 */
export function ensureAuditFolder(dir: string, make: boolean): { made: string[]; open: string[] } {
  const made: string[] = [];
  const open: string[] = [];
  if (make) mkdirSync(dirname(dirname(dir)), { recursive: true, mode: 0o700 });
  for (const folder of [dirname(dir), dir]) {
    if (lstatOrNull(folder) === null) {
      if (!make) {
        made.push(folder);
        continue;
      }
      try {
        mkdirSync(folder, { mode: 0o700 });
        made.push(folder);
      } catch (error) {
        // Made in the meantime by another install: checked below like any folder already there.
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    const stat = lstatSync(folder);
    if (stat.isSymbolicLink() || !stat.isDirectory()) {
      throw refused(folder, `is ${stat.isSymbolicLink() ? "a symbolic link" : "not a folder"}`);
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw refused(folder, `belongs to another user (uid ${stat.uid})`);
    }
    if ((stat.mode & 0o077) !== 0 && !made.includes(folder)) open.push(folder);
  }
  return { made, open };
}

/** Access bits as `ls -l`'s octal: `0755`. */
export function modeText(path: string): string {
  return `0${(lstatSync(path).mode & 0o777).toString(8)}`;
}

function refused(folder: string, why: string): ToolgateError {
  return new ToolgateError(
    "E_INSTALL_WRITE",
    `the audit log folder ${folder} ${why}; installed entries log every decision there, so it must be a folder of this user`,
    `remove ${folder} (or move it away), then run toolgate install again; the client's file is unchanged`,
  );
}
