import { spawn, type ChildProcessByStdio } from "node:child_process";
import { constants } from "node:os";
import type { Readable, Writable } from "node:stream";

/** How a child process ended, as a shell would report it: the exit code, or 128 + the signal number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0);
  return 1;
}

export interface ChildServerOptions {
  command: string;
  args: readonly string[];
  /** Unset: ours. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Between closing the server's stdin and SIGTERM, and between SIGTERM and SIGKILL. */
  graceMs: number;
}

/**
 * The MCP server as a child process: stdin/stdout are ours to speak JSON-RPC on, stderr goes straight to
 * our stderr. Shutting down follows the MCP stdio lifecycle: close its stdin, then SIGTERM, then SIGKILL.
 */
export class ChildServer {
  readonly process: ChildProcessByStdio<Writable, Readable, null>;
  /** Resolves with the exit status once the process has exited and its stdout is drained. */
  readonly closed: Promise<number>;
  private exited = false;

  constructor(options: ChildServerOptions) {
    this.process = spawn(options.command, [...options.args], {
      stdio: ["pipe", "pipe", "inherit"],
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    this.graceMs = options.graceMs;
    this.closed = new Promise<number>((resolve, reject) => {
      this.process.once("error", (error) => {
        // spawn failures (ENOENT, EACCES) arrive here and no "close" follows.
        if (this.process.pid === undefined) reject(error);
      });
      this.process.once("close", (code, signal) => {
        this.exited = true;
        resolve(exitStatus(code, signal));
      });
    });
    // Writing to a server that already exited raises EPIPE on its stdin; the exit itself is handled above.
    this.process.stdin.on("error", () => {});
  }

  private readonly graceMs: number;

  write(text: string): void {
    if (this.process.stdin.writable) this.process.stdin.write(text);
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exited) this.process.kill(signal);
  }

  /** The client went away: end the server's input, then escalate if it does not exit by itself. */
  shutdown(): void {
    this.process.stdin.end();
    const term = setTimeout(() => {
      this.signal("SIGTERM");
      const kill = setTimeout(() => this.signal("SIGKILL"), this.graceMs);
      kill.unref();
    }, this.graceMs);
    term.unref();
    void this.closed.finally(() => clearTimeout(term)).catch(() => {});
  }
}
