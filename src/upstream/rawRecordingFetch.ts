import type { FetchLike } from "@modelcontextprotocol/client";

/**
 * A fetch for the SDK's Streamable HTTP and HTTP+SSE client transports that hands `onRaw` the text of each
 * JSON-RPC message a server sends, before the transport parses it (see rawRecordingStdio.ts for why): a
 * JSON body whole, and each event's data on an event stream. Event data is recorded before the chunk that
 * completes the event is passed on, so a message's text is always recorded before the SDK delivers it.
 */
export function recordingFetch(onRaw: (text: string) => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status !== 200 || response.body === null) return response;
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    const init2 = { status: response.status, statusText: response.statusText, headers: response.headers };
    if (type.includes("application/json")) {
      const text = await response.text();
      onRaw(text);
      return new Response(text, init2);
    }
    if (type.includes("text/event-stream")) {
      const events = new EventDataReader(onRaw);
      const recorded = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            events.push(chunk);
            controller.enqueue(chunk);
          },
        }),
      );
      return new Response(recorded, init2);
    }
    return response;
  };
}

/** The `data` of each server-sent event (the WHATWG event-stream format), reported when the event ends. */
export class EventDataReader {
  private readonly decoder = new TextDecoder("utf-8");
  private pending = "";
  private data: string[] = [];
  private afterCr = false;

  constructor(private readonly onData: (data: string) => void) {}

  push(chunk: Uint8Array): void {
    let text = this.decoder.decode(chunk, { stream: true });
    // A CRLF split across chunks: the LF was already counted with the CR.
    if (this.afterCr && text.startsWith("\n")) text = text.slice(1);
    this.afterCr = text.endsWith("\r");
    this.pending += text;
    const lines = this.pending.split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) this.onData(this.data.join("\n"));
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== "data") return;
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.data.push(value);
  }
}
