import { writeJson } from "../engine/json/jsonNumber.js";
import type { Readable, Writable } from "node:stream";
import { readFrame, refusalId } from "../engine/rpc/inbound.js";
import { errorResponse, type JsonRpcMessage } from "../engine/rpc/jsonRpc.js";
import type { MessageTransport } from "./messageTransport.js";
import { LineFramer } from "./lineFramer.js";

/**
 * The client side of `toolgate serve --stdio`: newline-delimited JSON-RPC on our stdin and
 * stdout, read with the same strict rules as `wrap` (bounded lines, UTF-8, no duplicate keys, bounded depth,
 * no batches). A frame that fails them is answered with a JSON-RPC error (id null) and never reaches the
 * server. The end of stdin closes the session.
 */
export class StrictStdioServerTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  private readonly framer: LineFramer;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    maxFrameBytes: number,
    private readonly log: (line: string) => void,
  ) {
    this.framer = new LineFramer(maxFrameBytes, (frame) => {
      const inbound = readFrame(frame);
      if (!inbound.ok) {
        this.log(`rejected a client frame (${inbound.problem}): ${inbound.message}`);
        // Under the frame's own id when it is a request with one unambiguous id (the client stops waiting).
        void this.send(errorResponse(refusalId(inbound), inbound.code, inbound.message));
        return;
      }
      this.onmessage?.(inbound.message);
    });
  }

  private readonly onData = (chunk: Buffer): void => this.framer.push(chunk);
  private readonly onEnd = (): void => {
    this.framer.end();
    void this.close();
  };
  private readonly onError = (error: Error): void => this.onerror?.(error);

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onError);
    this.output.on("error", this.onError);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const line = writeJson(message) + "\n";
    if (this.output.write(line)) return Promise.resolve();
    return new Promise((resolve) => this.output.once("drain", resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onError);
    this.input.pause();
    this.onclose?.();
  }
}
