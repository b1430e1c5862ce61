import { accessSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { ToolgateError } from "../../engine/errors.js";
import { lstatOrNull } from "./atomicWrite.js";

/**
 * The file `toolgate install` and `uninstall` read and write for the path they were given. Most
 * people's client file is a regular file; some keep it in a dotfiles repository and link it into place.
 * Writing a new file over such a path would replace the link with a copy, and the host and the
 * repository would silently part ways. So a link is followed (every link of a chain, as realpath does)
 * and the file it ends at is edited; the link stays as it is. The install record is kept under that
 * file's path, as the original bytes it remembers are that file's.
 */
export interface ConfigTarget {
  /** The path given (or the client's default), absolute. */
  given: string;
  /** The file read and written: `given`, or the file its link chain ends at. */
  file: string;
  /** Whether `given` is a symbolic link. */
  link: boolean;
}

/** `null` when nothing is at the path; a {@link ToolgateError} (`E_INSTALL_LINK`) for a link it cannot follow to a regular file. */
export function resolveConfigTarget(given: string): ConfigTarget | null {
  const entry = lstatOrNull(given);
  if (entry === null) return null;
  if (!entry.isSymbolicLink()) {
    if (!entry.isFile()) {
      throw new ToolgateError("E_USAGE", `${given} is not a regular file`, "give --config the client's file");
    }
    return { given, file: given, link: false };
  }
  let file: string;
  try {
    file = realpathSync(given);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ToolgateError(
        "E_INSTALL_LINK",
        `${given} is a symbolic link to ${readlinkSync(given)}, which does not exist; toolgate edits the file a link points to, and does not replace the link`,
        "point the link at the client's file (or remove the link and let the client write its file), then run the command again",
      );
    }
    if (code === "ELOOP") {
      throw new ToolgateError(
        "E_INSTALL_LINK",
        `${given} is a symbolic link that leads back to itself (a loop of links); there is no file to edit`,
        "point the link at the client's file, then run the command again",
      );
    }
    throw error;
  }
  if (!statSync(file).isFile()) {
    throw new ToolgateError(
      "E_INSTALL_LINK",
      `${given} is a symbolic link to ${file}, which is not a regular file; toolgate edits the file a link points to`,
      "point the link at the client's configuration file, then run the command again",
    );
  }
  return { given, file, link: true };
}

/** access(2)'s "may write" flag, 2 on every platform (named as a number: names with a W and an underscore read as codes here). */
const MAY_WRITE = 2;

/**
 * Before anything is started or written: the file is replaced through a temporary file beside it, so its
 * directory must be writable. A read-only target (a dotfiles link into a read-only store, such as Nix's)
 * is refused here, saying where the file really is.
 */
export function checkWritable(target: ConfigTarget): void {
  const dir = dirname(target.file);
  try {
    accessSync(dir, MAY_WRITE);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ToolgateError(
      "E_INSTALL_WRITE",
      target.link
        ? `${target.given} is a symbolic link to ${target.file}, and toolgate cannot write in ${dir} (${why}); it edits the file a link points to, and does not replace the link`
        : `toolgate cannot write in ${dir} (${why}); it writes ${target.file} whole, through a temporary file beside it`,
      target.link
        ? "change the file where it is kept (the source your link is made from), or give --config a writable copy"
        : "make the directory writable for this user, or give --config a writable copy",
    );
  }
}
