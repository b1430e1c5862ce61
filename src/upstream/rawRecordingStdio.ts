import { writeJson } from "../engine/json/jsonNumber.js";
import { spawn, type ChildProcess } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { DEFAULT_MAX_FRAME_BYTES, type InboundFrame } from "../engine/rpc/frames.js";
import { readFrame } from "../engine/rpc/inbound.js";
import { LineFramer } from "../transports/lineFramer.js";

/**
 * An MCP stdio client transport that hands each line the server writes to `onRaw` before parsing it.
 * `toolgate pin` and `serve` need the text of `tools/list` answers as the server wrote it: the SDK's own
 * stdio transport parses lines into doubles, which loses the digits of integers beyond 2^53 that
 * `exact_schema_hash` is about. Lines are read as strictly as wrap reads them (bounded length, UTF-8, no
 * duplicate keys, bounded depth, no batches): a line that fails is dropped and reported through `onerror`,
 * never read one way here and another way by the server. Otherwise it behaves as the SDK's:
 * newline-delimited JSON, the child's stderr piped (or inherited, or ignored), stdin closed then SIGTERM
 * then SIGKILL on close.
 */
export interface RawStdioParams {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Default `pipe`: each chunk goes to `onStderr`. */
  stderr?: "pipe" | "inherit" | "ignore";
  /** Longest line accepted from the server (`--max-frame-bytes`); longer ones are dropped. */
  maxFrameBytes?: number;
}

const CLOSE_GRACE_MS = 2000;

export class RawStdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly framer: LineFramer;
  private outbox: string[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly params: RawStdioParams,
    private readonly onRaw: (text: string) => void,
    private readonly onStderr: (text: string) => void,
  ) {
    this.framer = new LineFramer(params.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, (frame) =>
      this.deliver(frame),
    );
  }

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
      child.stdout?.on("data", (chunk: Buffer) => this.framer.push(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk.toString("utf8")));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.writableEnded)
      return Promise.reject(new Error("Not connected"));
    // Messages sent in one turn of the event loop go out in one write: under load (many calls in flight)
    // that is one pipe write and one wake-up of the server instead of one each.
    this.outbox.push(writeJson(message) + "\n");
    if (this.flushing === null) {
      this.flushing = new Promise((resolve) => {
        setImmediate(() => {
          const text = this.outbox.join("");
          this.outbox = [];
          this.flushing = null;
          if (stdin.writableEnded || stdin.write(text)) resolve();
          else stdin.once("drain", () => resolve());
        });
      });
    }
    return this.flushing;
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

  private deliver(frame: InboundFrame): void {
    if (frame.kind === "text") {
      if (frame.text.trim() === "") return;
      this.onRaw(frame.text);
    }
    const inbound = readFrame(frame);
    if (!inbound.ok) {
      const why = `toolgate refused the server's frame (${inbound.problem}): ${inbound.message}`;
      this.onerror?.(new Error(why));
      // A refused answer still settles the request it answers, so the call fails now instead of at its
      // timeout; a refused request of the server is answered with the refusal.
      const { id, hasMethod } = inbound.envelope;
      if (id !== null && hasMethod)
        void this.send({ jsonrpc: "2.0", id, error: { code: inbound.code, message: why } });
      else if (id !== null) this.onmessage?.({ jsonrpc: "2.0", id, error: { code: -32603, message: why } });
      return;
    }
    // readFrame has checked it is one JSON-RPC 2.0 message; the protocol layer reads the rest.
    this.onmessage?.(inbound.message as JSONRPCMessage);
  }
}
