import type { FetchLike, JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import {
  restoreSentinels,
  reviveSentinels,
  sentinelsInText,
  withSentinels,
} from "../engine/json/jsonNumber.js";
import { lastScanNumbers, scanStrictJson } from "../engine/json/scanner.js";

/**
 * Numbers kept as written through the SDK's HTTP client transports (Streamable HTTP, HTTP+SSE), which
 * serialize with `JSON.stringify` and parse with `JSON.parse` and so would change `9007199254740993` on
 * the way out and on the way back. Outgoing, each JsonNumber travels as a sentinel string the fetch below
 * turns back into its literal in the body; incoming, each literal a double would change is turned into a
 * sentinel string in the text before the SDK parses it, and back into a JsonNumber when the message is
 * delivered (jsonNumber.ts). A text that is not JSON is passed on as it came; the SDK refuses it as before.
 */

/** A fetch that writes literals back into request bodies and shields them in JSON and event-stream answers. */
export function exactFetch(base: FetchLike): FetchLike {
  return async (url, init) => {
    const body = init?.body;
    const sent = typeof body === "string" ? { ...init, body: restoreSentinels(body) } : init;
    const response = await base(url, sent);
    if (response.body === null) return response;
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    const init2 = { status: response.status, statusText: response.statusText, headers: response.headers };
    if (type.includes("application/json")) return new Response(shielded(await response.text()), init2);
    if (type.includes("text/event-stream")) {
      return new Response(response.body.pipeThrough(eventStreamShield()), init2);
    }
    return response;
  };
}

/** The text with each number literal a double would change written as a sentinel string. */
function shielded(text: string): string {
  if (scanStrictJson(text, 1024, true) !== null) return text;
  return lastScanNumbers.inexact === 0 ? text : sentinelsInText(text, lastScanNumbers.spans ?? []);
}

/**
 * An event stream with the `data` of each event shielded (see {@link shielded}). Events are passed on whole,
 * as they end; comment lines (keep-alives) at once. An event whose data needs nothing is passed on as it
 * came, byte for byte.
 */
function eventStreamShield(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder("utf-8");
  const encoder = new TextEncoder();
  let pending = "";
  let afterCr = false;
  let lines: string[] = [];
  const flushEvent = (out: TransformStreamDefaultController<Uint8Array>): void => {
    const data = lines.filter((l) => l.startsWith("data")).map(dataOf);
    const joined = data.join("\n");
    const shield = data.length > 0 ? shielded(joined) : joined;
    const kept =
      shield === joined
        ? lines
        : [...lines.filter((l) => !l.startsWith("data")), ...shield.split("\n").map((d) => `data: ${d}`)];
    out.enqueue(encoder.encode(kept.join("\n") + "\n\n"));
    lines = [];
  };
  return new TransformStream({
    transform(chunk, out) {
      let text = decoder.decode(chunk, { stream: true });
      // A CRLF split across chunks: the LF was already counted with the CR.
      if (afterCr && text.startsWith("\n")) text = text.slice(1);
      afterCr = text.endsWith("\r");
      pending += text;
      const parts = pending.split(/\r\n|\r|\n/);
      pending = parts.pop() ?? "";
      for (const line of parts) {
        if (line === "") {
          if (lines.length > 0) flushEvent(out);
        } else if (line.startsWith(":") && lines.length === 0) out.enqueue(encoder.encode(line + "\n"));
        else lines.push(line);
      }
    },
    flush(out) {
      if (pending !== "") lines.push(pending);
      if (lines.length > 0) flushEvent(out);
    },
  });
}

function dataOf(line: string): string {
  const colon = line.indexOf(":");
  if (colon < 0) return "";
  const value = line.slice(colon + 1);
  return value.startsWith(" ") ? value.slice(1) : value;
}

/**
 * A client transport over one of the SDK's HTTP transports (made with {@link exactFetch}): what is sent
 * carries its JsonNumbers as sentinels, what arrives gets them back as JsonNumbers.
 */
export class ExactNumbersTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) =>
      this.onmessage?.(reviveSentinels(message) as JSONRPCMessage, extra as never);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.inner.send(withSentinels(message) as JSONRPCMessage, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Ends the server's session (Streamable HTTP's DELETE), when the transport below has one. */
  async terminateSession(): Promise<void> {
    const inner = this.inner as Transport & { terminateSession?: () => Promise<void> };
    await inner.terminateSession?.();
  }
}
