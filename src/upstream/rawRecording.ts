import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type FetchLike,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { parseJsonExact } from "../engine/json/exactNumbers.js";
import { RawStdioClientTransport } from "./rawRecordingStdio.js";
import { recordingFetch } from "./rawRecordingFetch.js";
import { exactFetch, ExactNumbersTransport } from "./exactHttp.js";

/**
 * MCP client transports under the SDK client that keep the text of each `tools/list` answer as the server
 * sent it. The SDK parses every message into doubles, which loses the digits of integers beyond 2^53 that
 * `exact_schema_hash` pins are about; these transports see each message's text first (stdio: toolgate's own
 * line transport; Streamable HTTP and HTTP+SSE: the SDK's transports over a fetch that records bodies and
 * event data), and {@link ToolsListTexts} keeps the texts that answer the `tools/list` requests sent.
 */

export type RecordingTarget =
  | {
      transport: "stdio";
      command: string;
      args: readonly string[];
      env: NodeJS.ProcessEnv;
      cwd?: string;
      /** Default `pipe` (each chunk to `onStderr`). */
      stderr?: "pipe" | "inherit" | "ignore";
      /** Longest line accepted from the server. */
      maxFrameBytes?: number;
    }
  | {
      transport: "http" | "sse";
      url: string;
      headers: Record<string, string>;
      /** What reaches the server (a remote server's token auth: upstreamAuth.ts); default: fetch. */
      fetch?: FetchLike;
    };

export interface RecordingTransport {
  transport: Transport;
  /** The stdio child's pid while it runs; null otherwise. */
  pid(): number | null;
  texts: ToolsListTexts;
}

/** A transport for `target` whose `tools/list` answers are kept in `texts`; give it to `Client.connect`. */
export function recordingTransport(
  target: RecordingTarget,
  onStderr: (text: string) => void,
): RecordingTransport {
  const texts = new ToolsListTexts();
  const onRaw = (text: string): void => texts.record(text);
  let transport: Transport;
  let pid: () => number | null = () => null;
  switch (target.transport) {
    case "stdio": {
      const stdio = new RawStdioClientTransport(
        {
          command: target.command,
          args: target.args,
          env: target.env,
          ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
          ...(target.stderr === undefined ? {} : { stderr: target.stderr }),
          ...(target.maxFrameBytes === undefined ? {} : { maxFrameBytes: target.maxFrameBytes }),
        },
        onRaw,
        onStderr,
      );
      pid = () => stdio.pid;
      transport = stdio;
      break;
    }
    case "http":
      // Numbers kept as written both ways (exactHttp.ts), around the recording of the server's own texts.
      transport = new ExactNumbersTransport(
        new StreamableHTTPClientTransport(new URL(target.url), {
          requestInit: { headers: { ...target.headers } },
          fetch: exactFetch(recordingFetch(onRaw, target.fetch)),
        }),
      );
      break;
    case "sse":
      // The SDK adds requestInit's headers to the request opening the event stream as well as to each POST.
      transport = new ExactNumbersTransport(
        new SSEClientTransport(new URL(target.url), {
          requestInit: { headers: { ...target.headers } },
          fetch: exactFetch(recordingFetch(onRaw, target.fetch)),
        }),
      );
      break;
  }
  texts.watch(transport);
  return { transport, pid, texts };
}

type RequestId = string | number;

/**
 * The text of each answer to a `tools/list` request sent on one transport, by request id. Only the first
 * answer to a request is kept (the one the SDK delivers; a later one with the same id is ignored by both).
 * Texts are parsed with exact numbers only to find the id and, for a batch body, to cut out each member.
 */
export class ToolsListTexts {
  private readonly wanted = new Set<RequestId>();
  private readonly texts = new Map<RequestId, string>();
  private sentCount = 0;
  private lastSent: RequestId | undefined;

  /** Notes the id of every `tools/list` request the transport sends. Call before the client connects. */
  watch(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if ("method" in message && message.method === "tools/list" && "id" in message) this.sent(message.id);
      return send(message, options);
    };
  }

  sent(id: RequestId): void {
    this.wanted.add(id);
    this.texts.delete(id);
    this.sentCount++;
    this.lastSent = id;
  }

  /** The id of the last `tools/list` request sent, if any. */
  get lastSentId(): RequestId | undefined {
    return this.lastSent;
  }

  /**
   * Runs `request` and returns its promise with the id of the one `tools/list` request it sent
   * synchronously (the SDK client sends within the call), `undefined` when it did not send exactly one.
   */
  capture<T>(request: () => Promise<T>): { pending: Promise<T>; id: RequestId | undefined } {
    const before = this.sentCount;
    const pending = request();
    return { pending, id: this.sentCount === before + 1 ? this.lastSent : undefined };
  }

  /** A message text as it arrived, before the SDK parses it. */
  record(text: string): void {
    if (this.wanted.size === 0) return;
    const parsed = parseJsonExact(text);
    if (!parsed.ok) return;
    const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    for (const message of messages) {
      if (typeof message !== "object" || message === null) continue;
      const id = (message as { id?: unknown }).id;
      if ((typeof id !== "string" && typeof id !== "number") || !this.wanted.has(id)) continue;
      if (!("result" in message) && !("error" in message)) continue;
      this.wanted.delete(id);
      const span = parsed.spanOf(message);
      this.texts.set(id, span === undefined ? text : text.slice(span[0], span[1]));
    }
  }

  /** The answer's text for request `id` (once: it is forgotten, as is the request). */
  take(id: RequestId): string | undefined {
    this.wanted.delete(id);
    const text = this.texts.get(id);
    this.texts.delete(id);
    return text;
  }
}
