import { writeJson } from "../engine/json/jsonNumber.js";
import type { Readable, Writable } from "node:stream";
import type { ProxyPeers } from "./policyProxy.js";
import type { InboundFrame } from "../engine/rpc/frames.js";
import type { JsonRpcMessage } from "../engine/rpc/jsonRpc.js";
import { ChildServer } from "../transports/childServer.js";
import { flowControl } from "../transports/flowControl.js";
import { LineFramer } from "../transports/lineFramer.js";
import { spawnFailure } from "../upstream/spawnFailure.js";

/** The part of the proxy a transport drives. */
export interface FrameHandler {
  fromClient(frame: InboundFrame): void;
  fromServer(frame: InboundFrame): void;
  serverClosed(): void;
  /** The client closed its input (nothing it was asked will be answered). */
  clientClosed?(): void;
  idle(): Promise<void>;
  /**
   * The server could not be started: every client request is answered with `message` from now on.
   * Resolves once `initialize` was answered so (the host shows the message), or after a bounded wait.
   */
  serverUnavailable?(message: string): Promise<void>;
}

export interface StdioWrapOptions {
  command: string;
  args: readonly string[];
  /** The server's environment and working directory; unset: ours. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  maxFrameBytes: number;
  /**
   * Builds the proxy once the server is spawned and the peers exist. It may take its time (compiling the
   * policy's schemas overlaps the server's own start-up): frames from either side wait, unread, until it
   * is ready.
   */
  createHandler(peers: ProxyPeers): FrameHandler | Promise<FrameHandler>;
  log(line: string): void;
  /** Shutdown grace periods (stdin close → SIGTERM → SIGKILL). */
  graceMs?: number;
  input?: Readable;
  output?: Writable;
  /** SIGHUP reloads toolgate's own configuration instead of going to the server (a reload watch is on). */
  keepHangup?: boolean;
  /** Each line of the server's stderr (--log-format json); unset: the server's stderr is ours. */
  serverStderr?: (line: string) => void;
}

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Newline-delimited JSON-RPC between our stdin/stdout (the client) and a child server's stdin/stdout.
 * Only moves frames; every decision is the handler's. Resolves with the exit status to exit with: the
 * server's own, so a wrapped server looks the same to whoever started it.
 */
export async function runStdioWrap(options: StdioWrapOptions): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const child = new ChildServer({
    command: options.command,
    args: options.args,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    graceMs: options.graceMs ?? 2000,
    ...(options.serverStderr === undefined ? {} : { stderrLine: options.serverStderr }),
  });

  let clientGone = false;
  // The server is read only while the client keeps up; the client only while both the client (toolgate's
  // own answers) and the server keep up.
  const serverPace = flowControl(child.process.stdout, [output]);
  const clientPace = flowControl(input, [output, child.process.stdin]);
  const peers: ProxyPeers = {
    toServer: (message: JsonRpcMessage) => {
      child.write(writeJson(message) + "\n");
      clientPace();
    },
    toClient: (message: JsonRpcMessage) => {
      if (clientGone) return;
      output.write(writeJson(message) + "\n");
      serverPace();
      clientPace();
    },
  };
  // A spawn failure is reported below, once the handler is ready; until then it must not count as unhandled.
  child.closed.catch(() => {});
  const handler = await options.createHandler(peers);

  const serverFramer = new LineFramer(options.maxFrameBytes, (frame) => handler.fromServer(frame));
  child.process.stdout.on("data", (chunk: Buffer) => serverFramer.push(chunk));
  child.process.stdout.on("end", () => {
    serverFramer.end();
    handler.serverClosed();
  });

  const clientFramer = new LineFramer(options.maxFrameBytes, (frame) => handler.fromClient(frame));
  const onClientData = (chunk: Buffer): void => clientFramer.push(chunk);
  let shuttingDown = false;
  const clientClosed = (): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    clientFramer.end();
    handler.clientClosed?.();
    // Let calls still waiting (catalog, probe) reach the server before its input closes.
    void handler.idle().then(() => child.shutdown());
  };
  input.on("data", onClientData);
  input.on("end", clientClosed);
  input.on("error", clientClosed);
  output.on("error", () => {
    // EPIPE: the client closed its end; nothing more can reach it.
    clientGone = true;
    clientClosed();
  });

  const forward = (signal: NodeJS.Signals): void => child.signal(signal);
  const forwarded = FORWARDED_SIGNALS.filter((s) => !(s === "SIGHUP" && options.keepHangup === true));
  for (const signal of forwarded) process.on(signal, forward);

  try {
    const status = await child.closed;
    await flushed(output);
    return status;
  } catch (error) {
    const reason = spawnFailure(options.command, error, options.env ?? process.env);
    options.log(reason);
    // The host sees only what comes back on the connection: the reason goes there too.
    await handler.serverUnavailable?.(reason);
    await flushed(output);
    return 127;
  } finally {
    for (const signal of forwarded) process.off(signal, forward);
    input.off("data", onClientData);
    input.off("end", clientClosed);
    input.pause();
  }
}

/** Resolves once everything written to `output` so far has been handed to the OS (bounded: 1 s). */
function flushed(output: Writable): Promise<void> {
  if (output.writableLength === 0 || output.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000);
    timer.unref();
    output.write("", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
