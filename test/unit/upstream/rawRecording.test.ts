// The raw-text recording under the SDK client (gateway/rawRecording*.ts): which answer texts are kept for
// which tools/list request, how event-stream data is reassembled, and how schema texts are cut from pages.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ToolsListTexts } from "../../../src/upstream/rawRecording.js";
import { EventDataReader, recordingFetch } from "../../../src/upstream/rawRecordingFetch.js";
import { RawSchemaTexts } from "../../../src/session/rawSchemaTexts.js";

const BIG = "9007199254740993";
const page = (id: number | string, tools: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[${tools}]}}`;
const bounded = (n: string) => `{"name":"bounded","inputSchema":{"type":"object","maximum":${n}}}`;

/** A transport that only collects what is sent through it. */
function sink(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return {
    sent,
    start: async () => {},
    close: async () => {},
    send: async (message: JSONRPCMessage) => void sent.push(message),
  };
}

describe("ToolsListTexts", () => {
  it("keeps the text answering a tools/list request it saw sent, and nothing else", async () => {
    const texts = new ToolsListTexts();
    const transport = sink();
    texts.watch(transport);
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    expect(transport.sent).toHaveLength(2);
    texts.record(`{"jsonrpc":"2.0","id":1,"result":{}}`);
    texts.record(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`);
    texts.record("not json");
    texts.record(page(2, bounded(BIG)));
    expect(texts.take(1)).toBeUndefined();
    expect(texts.take(2)).toBe(page(2, bounded(BIG)));
    // Taken once.
    expect(texts.take(2)).toBeUndefined();
  });

  it("keeps the first answer to a request, as the SDK delivers it, not a later one with the same id", () => {
    const texts = new ToolsListTexts();
    texts.sent(7);
    texts.record(page(7, bounded(BIG)));
    texts.record(page(7, bounded("9007199254740992")));
    expect(texts.take(7)).toBe(page(7, bounded(BIG)));
  });

  it("cuts a member out of a batch body, and keeps error answers", () => {
    const texts = new ToolsListTexts();
    texts.sent("a");
    texts.sent("b");
    const error = `{"jsonrpc":"2.0","id":"b","error":{"code":-32603,"message":"no"}}`;
    texts.record(`[${page("a", bounded(BIG))}, ${error}]`);
    expect(texts.take("a")).toBe(page("a", bounded(BIG)));
    expect(texts.take("b")).toBe(error);
  });

  it("a request that is taken before its answer arrives is forgotten", () => {
    const texts = new ToolsListTexts();
    texts.sent(3);
    expect(texts.take(3)).toBeUndefined();
    texts.record(page(3, bounded(BIG)));
    expect(texts.take(3)).toBeUndefined();
  });

  it("capture names the one tools/list request sent during the call, else none", () => {
    const texts = new ToolsListTexts();
    const one = texts.capture(() => {
      texts.sent(11);
      return Promise.resolve("x");
    });
    expect(one.id).toBe(11);
    expect(texts.capture(() => Promise.resolve("nothing sent")).id).toBeUndefined();
    const two = texts.capture(() => {
      texts.sent(12);
      texts.sent(13);
      return Promise.resolve("two");
    });
    expect(two.id).toBeUndefined();
  });
});

describe("EventDataReader", () => {
  const read = (chunks: string[]): string[] => {
    const out: string[] = [];
    const reader = new EventDataReader((data) => out.push(data));
    const encoder = new TextEncoder();
    for (const c of chunks) reader.push(encoder.encode(c));
    return out;
  };

  it("reports each event's data when the event ends, joining data lines", () => {
    expect(read(['event: message\ndata: {"a":1}\n\n', "data: x\ndata: y\n\n", "data: open"])).toEqual([
      '{"a":1}',
      "x\ny",
    ]);
  });

  it("reassembles events split across chunks, CRLF split between them included, and skips comments", () => {
    expect(
      read([': keep-alive\r\nevent: message\r\ndata: {"n":', `${BIG}}\r`, "\n\r\n", "id: 2\n\n"]),
    ).toEqual([`{"n":${BIG}}`]);
  });
});

describe("recordingFetch", () => {
  it("records a JSON body whole and each event's data, and still hands the SDK the same bodies", async () => {
    const recorded: string[] = [];
    const json = page(1, bounded(BIG));
    const base = async (url: string | URL): Promise<Response> =>
      String(url).endsWith("/json")
        ? new Response(json, { status: 200, headers: { "content-type": "application/json" } })
        : new Response(`event: message\ndata: ${json}\n\n`, {
            status: 200,
            headers: { "content-type": "text/event-stream" },
          });
    const fetch = recordingFetch((text) => recorded.push(text), base);
    expect(await (await fetch("http://127.0.0.1/json")).text()).toBe(json);
    expect(await (await fetch("http://127.0.0.1/sse")).text()).toBe(`event: message\ndata: ${json}\n\n`);
    expect(recorded).toEqual([json, json]);
  });
});

describe("RawSchemaTexts", () => {
  it("gives each tool's schema as written; the first page wins for a repeated name", () => {
    const pages = [
      page(1, bounded(BIG)),
      undefined,
      page(2, `${bounded("1")},{"name":"other","inputSchema":{"type":"object"}}`),
    ];
    const texts = new RawSchemaTexts(pages, () => {});
    expect(texts.get("bounded")).toBe(`{"type":"object","maximum":${BIG}}`);
    expect(texts.get("other")).toBe(`{"type":"object"}`);
    expect(texts.get("missing")).toBeUndefined();
  });

  it("a page that cannot be read gives no texts (exact pins on its tools then fail, closed), and says why", () => {
    const lines: string[] = [];
    const dup = `{"jsonrpc":"2.0","id":1,"result":{"tools":[${bounded(BIG)},${bounded(BIG)}]}}`;
    const texts = new RawSchemaTexts([dup, page(2, `{"name":"ok","inputSchema":{}}`)], (l) => lines.push(l));
    expect(texts.get("bounded")).toBeUndefined();
    expect(texts.get("ok")).toBe("{}");
    expect(lines).toEqual([expect.stringContaining("names tool 'bounded' twice")]);
  });
});
