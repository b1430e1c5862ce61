import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";

/** Editors write a file in several steps (truncate, write, rename): one reload after the last of them. */
const SETTLE_MS = 300;

export interface ReloadWatchOptions {
  /** Files and directories whose change reloads (a directory: any file under it). */
  paths: readonly string[];
  /** Re-reads and applies the configuration; `trigger` says why (`SIGHUP`, or the file that changed). */
  reload(trigger: string): Promise<void>;
  log(line: string): void;
}

/**
 * Reloads on SIGHUP and when a watched file changes. Reloads never overlap: a change during one starts
 * another once it is done, so the last edit always wins. A file is watched through its directory, since
 * an editor that saves by renaming replaces the file a watch on the file itself would follow.
 */
export function watchForReload(options: ReloadWatchOptions): { close(): void } {
  let running: Promise<void> | null = null;
  let again: string | null = null;
  let timer: NodeJS.Timeout | null = null;

  const run = (trigger: string): void => {
    if (running !== null) {
      again = trigger;
      return;
    }
    running = options
      .reload(trigger)
      .catch((error: unknown) =>
        options.log(`reload failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        running = null;
        const next = again;
        again = null;
        if (next !== null) run(next);
      });
  };
  const changed = (path: string): void => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      run(path);
    }, SETTLE_MS);
    timer.unref();
  };

  const watchers: FSWatcher[] = [];
  for (const given of new Set(options.paths.map((p) => resolve(p)))) {
    const isDir = existsSync(given) && statSync(given).isDirectory();
    const dir = isDir ? given : dirname(given);
    const name = basename(given);
    try {
      const watcher = watch(dir, { recursive: isDir }, (_event, file) => {
        if (isDir) changed(file === null ? given : resolve(given, file.toString()));
        else if (file === null || file.toString() === name) changed(given);
      });
      watcher.on("error", (error) => options.log(`cannot watch ${given} any more: ${error.message}`));
      watcher.unref();
      watchers.push(watcher);
    } catch (error) {
      options.log(
        `cannot watch ${given} (${error instanceof Error ? error.message : String(error)}); SIGHUP still reloads`,
      );
    }
  }
  const onHangup = (): void => run("SIGHUP");
  process.on("SIGHUP", onHangup);
  return {
    close(): void {
      process.off("SIGHUP", onHangup);
      if (timer !== null) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
