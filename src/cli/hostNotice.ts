import type { Readable, Writable } from "node:stream";

/**
 * A stdio server that cannot start is, to its host, a connection that closed: Claude Code, for one, shows
 * "Connection closed" and keeps toolgate's stderr in a log file nobody reads. So when wrap or serve cannot
 * start, toolgate answers the host's first requests itself, with a JSON-RPC error that carries the first
 * error it printed and its hint (hosts show that message), and then exits. `server/discover` (the modern
 * era's probe) gets the same error, and a host then falls back to `initialize`, which gets it too.
 */

/** Everything written to stderr from now on, kept (and still written) until `stop`. */
export class StderrRecord {
  private text = "";
  private readonly original = process.stderr.write.bind(process.stderr);

  constructor() {
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      this.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return (this.original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
  }

  /** The first error line printed (a diagnostic or a `toolgate:` line), without the `toolgate: ` prefix. */
  firstError(): string | null {
    const lines = this.text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(textOfJsonLine);
    const line = lines.find((l) => /(^|: )error /.test(l)) ?? lines.find((l) => l.startsWith("toolgate: "));
    return line === undefined ? null : line.replace(/^toolgate: /, "");
  }

  stop(): void {
    process.stderr.write = this.original;
  }
}

/** A `--log-format json` line as the text form says it (`error CODE: message`); any other line as it is. */
function textOfJsonLine(line: string): string {
  if (!line.startsWith("{")) return line;
  try {
    const entry = JSON.parse(line) as { level?: unknown; code?: unknown; message?: unknown; hint?: unknown };
    if (typeof entry.code !== "string" || typeof entry.message !== "string") return line;
    const level = entry.level === "error" ? "error" : String(entry.level);
    const hint = typeof entry.hint === "string" ? ` (hint: ${entry.hint})` : "";
    return `${level} ${entry.code}: ${entry.message}${hint}`;
  } catch {
    return line;
  }
}

const WAIT_MS = 5000;
const MAX_BYTES = 1 << 20;

/**
 * Answers the host's requests on `input` with `message` until an `initialize` was answered, the input ends,
 * or `waitMs` pass (bounded, and never on a terminal, where no host is listening).
 */
export function tellHost(
  message: string,
  input: Readable & { isTTY?: boolean } = process.stdin,
  output: Writable = process.stdout,
  waitMs = WAIT_MS,
): Promise<void> {
  if (input.isTTY === true) return Promise.resolve();
  return new Promise((resolve) => {
    let buffer = "";
    let seen = 0;
    const done = (): void => {
      clearTimeout(timer);
      input.off("data", onData);
      input.off("end", done);
      input.pause();
      // What was written reaches the host before toolgate exits.
      output.write("", () => resolve());
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      buffer += chunk.toString("utf8");
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const request = readRequest(line);
        if (request === null) continue;
        output.write(
          JSON.stringify({
            jsonrpc: "2.0",
            id: request.id,
            error: { code: -32603, message: `toolgate: ${message}` },
          }) + "\n",
        );
        if (request.method === "initialize") return done();
      }
      if (seen > MAX_BYTES) done();
    };
    const timer = setTimeout(done, waitMs);
    timer.unref();
    input.on("data", onData);
    input.on("end", done);
    input.resume();
  });
}

function readRequest(line: string): { id: string | number; method: string } | null {
  try {
    const m = JSON.parse(line) as { id?: unknown; method?: unknown };
    if ((typeof m.id === "string" || typeof m.id === "number") && typeof m.method === "string") {
      return { id: m.id, method: m.method };
    }
  } catch {
    // not a request: nothing to answer
  }
  return null;
}
