import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { ToolgateError } from "../../engine/errors.js";

/** Random bytes in each temporary name: 96 bits, so nobody can create a name before toolgate uses it. */
export const TEMP_NAME_BYTES = 12;

/** Fresh names tried when one is taken; with random names a taken one means someone else made it. */
const ATTEMPTS = 4;

/**
 * Created with O_EXCL (and O_NOFOLLOW where the platform has it): the open fails on anything already at
 * the name, a file or a symbolic link, dangling or not, instead of writing through it.
 */
const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** `.<name>.toolgate-<random hex>.tmp` beside `file`: hidden, and named after the file it replaces. */
export function temporaryName(file: string, random: Buffer): string {
  return join(dirname(file), `.${basename(file)}.toolgate-${random.toString("hex")}.tmp`);
}

/**
 * Writes `file` whole, so a reader (the host, running) sees the old file or the new one, never half of
 * one: the text goes to a temporary file created exclusively under a random name in the same directory,
 * is flushed to disk, then renamed over `file`. A predictable name could be created first by someone who
 * can write the directory, as a link to a file of theirs to overwrite; an exclusive create of a random
 * name cannot be.
 *
 * The mode is the existing file's; a new file gets `mode` (less what the umask takes away). A symbolic
 * link at `file` is refused: the rename would replace the link with a regular file. Callers that edit a
 * file a link points to pass the link's target (see configTarget.ts).
 */
export function writeAtomically(
  file: string,
  text: string,
  mode = 0o644,
  random: (size: number) => Buffer = randomBytes,
): void {
  const existing = lstatOrNull(file);
  if (existing?.isSymbolicLink() === true) {
    throw new ToolgateError(
      "E_INSTALL_LINK",
      `${file} is a symbolic link; toolgate writes files whole (a rename), which would replace the link`,
      "edit the file the link points to",
    );
  }
  const keep = existing?.isFile() === true ? existing.mode & 0o777 : undefined;
  const { temp, fd } = createExclusive(file, keep ?? mode, random);
  let open = true;
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
    // The umask applied at the create; an existing file's mode is kept exactly.
    if (keep !== undefined) fchmodSync(fd, keep);
    fsyncSync(fd);
    open = false;
    closeSync(fd);
    renameSync(temp, file);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dirname(file));
}

function createExclusive(
  file: string,
  mode: number,
  random: (size: number) => Buffer,
): { temp: string; fd: number } {
  const taken: string[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const temp = temporaryName(file, random(TEMP_NAME_BYTES));
    try {
      return { temp, fd: openSync(temp, EXCLUSIVE, mode) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      taken.push(temp);
    }
  }
  throw new ToolgateError(
    "E_INSTALL_WRITE",
    `cannot write ${file}: every temporary name tried beside it already exists (${taken.join(", ")})`,
    "something else creates files in that directory under toolgate's names; find out what, remove them, and run the command again",
  );
}

/** The rename is durable once the directory is flushed; where a directory cannot be opened (Windows), the OS does it later. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Durability only: the file is already complete and in place.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
