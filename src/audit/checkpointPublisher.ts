import { spawn } from "node:child_process";

/**
 * `--checkpoint-publish CMD`: each signed checkpoint, as its log line, on the standard input of CMD (run
 * by the shell), so it lands somewhere the gateway's disk does not reach (a ticket, object storage, a
 * transparency log). Whoever holds a published checkpoint can later tell when lines up to it were removed
 * from the log (`audit verify --expect-checkpoint`).
 *
 * Never on a call's path: checkpoints queue here and are published one at a time, in order. A failure
 * (exit status other than 0, no start, no end within the timeout) is logged with E_CHECKPOINT_PUBLISH and
 * retried after 1, 2, 4, 8 s (five attempts in all), then given up with a line saying so. The queue is
 * bounded: when it overflows the oldest waiting checkpoint is dropped (a later one vouches for everything
 * it did), with a line saying so.
 */

export interface PublisherOptions {
  attempts: number;
  firstDelayMs: number;
  /** How long one run of CMD may take before it is stopped and counted as failed. */
  timeoutMs: number;
  maxQueue: number;
}

export const DEFAULT_PUBLISHER: PublisherOptions = {
  attempts: 5,
  firstDelayMs: 1000,
  timeoutMs: 30_000,
  maxQueue: 100,
};

interface Pending {
  line: string;
  seq: number;
}

const STDERR_KEPT = 500;

export class CheckpointPublisher {
  private readonly queue: Pending[] = [];
  private running: Promise<void> | null = null;

  constructor(
    private readonly command: string,
    private readonly log: (line: string) => void,
    private readonly options: PublisherOptions = DEFAULT_PUBLISHER,
  ) {}

  /** Queues a checkpoint line (without newline); returns at once. */
  publish(line: string, seq: number): void {
    this.queue.push({ line, seq });
    if (this.queue.length > this.options.maxQueue) {
      const dropped = this.queue.shift()!;
      this.log(
        `E_CHECKPOINT_PUBLISH: the checkpoint at seq ${dropped.seq} was not published: ${this.options.maxQueue} more are waiting (a later one vouches for everything it did)`,
      );
    }
    this.running ??= this.pump().finally(() => (this.running = null));
  }

  /** Waits for what is queued, at most `timeoutMs`; says what was left unpublished. */
  async drain(timeoutMs: number): Promise<void> {
    const running = this.running;
    if (running === null) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
    const late = await Promise.race([running.then(() => false), timedOut]);
    clearTimeout(timer);
    if (late) {
      this.log(
        `E_CHECKPOINT_PUBLISH: exiting with checkpoints not yet published (up to seq ${this.queue.at(-1)?.seq ?? "the one being published"}); they are in the log`,
      );
    }
  }

  private async pump(): Promise<void> {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      await this.deliver(next);
    }
  }

  private async deliver(item: Pending): Promise<void> {
    const { attempts, firstDelayMs } = this.options;
    for (let attempt = 1; ; attempt++) {
      const failure = await this.runOnce(item.line);
      if (failure === null) return;
      const what = `publishing the checkpoint at seq ${item.seq} with \`${this.command}\` failed (${failure})`;
      if (attempt >= attempts) {
        this.log(
          `E_CHECKPOINT_PUBLISH: ${what}; gave up after ${attempts} attempts (the checkpoint is in the log: publish it from there)`,
        );
        return;
      }
      const delay = firstDelayMs * 2 ** (attempt - 1);
      this.log(`E_CHECKPOINT_PUBLISH: ${what}; attempt ${attempt} of ${attempts}, next in ${delay / 1000} s`);
      await new Promise<void>((resolve) => setTimeout(resolve, delay).unref());
    }
  }

  /** One run of the command with the line on its stdin: null when it exited 0, else what went wrong. */
  private runOnce(line: string): Promise<string | null> {
    return new Promise((resolve) => {
      // Its stdout is not ours to share: under wrap, toolgate's stdout is the MCP connection.
      const child = spawn(this.command, { shell: true, stdio: ["pipe", "ignore", "pipe"] });
      let stderr = "";
      let settled = false;
      const done = (failure: string | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(failure);
      };
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        done(`it did not finish within ${this.options.timeoutMs / 1000} s`);
      }, this.options.timeoutMs);
      timer.unref();
      child.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString("utf8");
      });
      child.on("error", (error) => done(`it could not be run: ${error.message}`));
      child.on("close", (code, signal) => {
        if (code === 0) return done(null);
        const said = stderr.trim().slice(0, STDERR_KEPT).replace(/\s+/g, " ");
        done(`${code === null ? `signal ${signal}` : `exit ${code}`}${said === "" ? "" : `: ${said}`}`);
      });
      // A command that exits without reading its input closes the pipe: that is its exit status's to say.
      child.stdin.on("error", () => {});
      child.stdin.end(line + "\n");
    });
  }
}
