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
  /** Each line the server writes on stderr; unset: its stderr is ours, byte for byte. */
  stderrLine?: (line: string) => void;
}

/** A server's stderr line longer than this is passed on in pieces (a line is never held unbounded). */
const MAX_STDERR_LINE = 64 * 1024;

/**
 * The MCP server as a child process: stdin/stdout are ours to speak JSON-RPC on, stderr goes straight to
 * our stderr. Shutting down follows the MCP stdio lifecycle: close its stdin, then SIGTERM, then SIGKILL.
 */
export class ChildServer {
  readonly process: ChildProcessByStdio<Writable, Readable, Readable | null>;
  /** Resolves with the exit status once the process has exited and its stdout is drained. */
  readonly closed: Promise<number>;
  private exited = false;

  constructor(options: ChildServerOptions) {
    // stdin and stdout are always pipes; stderr is one only when its lines are asked for.
    this.process = spawn(options.command, [...options.args], {
      stdio: ["pipe", "pipe", options.stderrLine === undefined ? "inherit" : "pipe"],
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    }) as unknown as ChildProcessByStdio<Writable, Readable, Readable | null>;
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
    const toLine = options.stderrLine;
    if (toLine !== undefined && this.process.stderr !== null) {
      let pending = "";
      this.process.stderr.setEncoding("utf8");
      this.process.stderr.on("data", (chunk: string) => {
        pending += chunk;
        let at: number;
        while ((at = pending.indexOf("\n")) >= 0 || pending.length > MAX_STDERR_LINE) {
          const end = at >= 0 ? at : MAX_STDERR_LINE;
          toLine(pending.slice(0, end).replace(/\r$/, ""));
          pending = pending.slice(at >= 0 ? end + 1 : end);
        }
      });
      this.process.stderr.on("end", () => {
        if (pending !== "") toLine(pending);
      });
    }
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
