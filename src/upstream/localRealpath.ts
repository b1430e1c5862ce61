import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { RealpathHook } from "../engine/model/decision.js";

/**
 * The realpath hook for a server that shares toolgate's filesystem (`toolgate wrap` runs it locally):
 * symbolic links resolved as the server would, relative paths against the server's working directory.
 * `null` for a path that does not exist (the scope check then resolves its nearest existing ancestor);
 * any other failure (permissions, a loop) throws, and the scope check denies.
 */
export function localRealpath(serverCwd: string = process.cwd()): RealpathHook {
  return (path: string): string | null => {
    try {
      return realpathSync.native(resolve(serverCwd, path));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw error;
    }
  };
}
