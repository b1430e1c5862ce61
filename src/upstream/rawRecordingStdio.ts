import { spawn, type ChildProcess } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * An MCP stdio client transport that hands each line the server writes to `onRaw` before parsing it.
 * `toolgate pin` and `serve` need the text of `tools/list` answers as the server wrote it: the SDK's own
 * stdio transport parses lines into doubles, which loses the digits of integers beyond 2^53 that
 * `exact_schema_hash` is about. Otherwise it behaves as the SDK's: newline-delimited JSON, the child's
 * stderr piped (or inherited, or ignored), stdin closed then SIGTERM then SIGKILL on close.
 */
export interface RawStdioParams {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Default `pipe`: each chunk goes to `onStderr`. */
  stderr?: "pipe" | "inherit" | "ignore";
}

const MAX_LINE_BYTES = 64 * 1024 * 1024;
const CLOSE_GRACE_MS = 2000;

export class RawStdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  constructor(
    private readonly params: RawStdioParams,
    private readonly onRaw: (text: string) => void,
    private readonly onStderr: (text: string) => void,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error("RawStdioClientTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: this.params.env,
        stdio: ["pipe", "pipe", this.params.stderr ?? "pipe"],
        shell: false,
        ...(this.params.cwd === undefined ? {} : { cwd: this.params.cwd }),
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk.toString("utf8")));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.writableEnded)
      return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(JSON.stringify(message) + "\n")) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = (): Promise<void> =>
      Promise.race([closed, new Promise<void>((r) => setTimeout(r, CLOSE_GRACE_MS).unref())]);
    child.stdin?.end();
    await wait();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await wait();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      const line = this.buffered.length === 0 ? piece : Buffer.concat([...this.buffered, piece]);
      this.buffered = [];
      this.bufferedBytes = 0;
      this.deliver(line.toString("utf8").replace(/\r$/, ""));
      start = newline + 1;
    }
    if (start < chunk.length) {
      this.buffered.push(chunk.subarray(start));
      this.bufferedBytes += chunk.length - start;
      if (this.bufferedBytes > MAX_LINE_BYTES) {
        this.buffered = [];
        this.bufferedBytes = 0;
        this.onerror?.(new Error(`the server wrote a line longer than ${MAX_LINE_BYTES} bytes`));
        void this.close();
      }
    }
  }

  private deliver(text: string): void {
    if (text.trim() === "") return;
    this.onRaw(text);
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }
}
