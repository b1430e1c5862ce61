// Bytes straight into the wrapper's stdin, lines straight off its stdout: hostile input on either side is
// refused, nothing of it reaches the other side, and the proxy keeps serving.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER, FIXTURES, NODE, RawWrapper, wrapCommand } from "./helpers.js";

let wrapper: RawWrapper | undefined;

afterEach(async () => {
  await wrapper?.close();
  wrapper = undefined;
});

async function everything(extra: string[] = []): Promise<RawWrapper> {
  wrapper = new RawWrapper(wrapCommand(extra, [NODE, EVERYTHING_SERVER]));
  await wrapper.initialize();
  return wrapper;
}

/** An echo call; if it reached the server, the answer would be `Echo: <message>` under this id. */
const echo = (id: number, message: string): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "echo", arguments: { message } },
  });

/** Proves the proxy still serves: a valid call right after gets its real answer. */
async function stillServes(w: RawWrapper, id: number): Promise<void> {
  w.send(echo(id, `alive-${id}`) + "\n");
  const answer = await w.response(id);
  expect(answer.result).toEqual({ content: [{ type: "text", text: `Echo: alive-${id}` }] });
}

/**
 * Sends a frame, expects exactly one error answer, under the frame's own id when that is one unambiguous id
 * of a request (`answeredAs`), else under null; and that the call never reached the server (no result).
 */
async function expectRefused(
  w: RawWrapper,
  frame: string | Buffer,
  code: number,
  text: RegExp,
  forbiddenId: number,
  answeredAs: number | null = null,
): Promise<void> {
  const errors = () => w.messages().filter((m) => m.id === answeredAs && m.error !== undefined);
  const before = errors().length;
  w.send(frame);
  await w.until(() => errors().length > before);
  const error = errors()[before]!;
  expect(error).toMatchObject({ jsonrpc: "2.0", id: answeredAs, error: { code } });
  expect((error.error as { message: string }).message).toMatch(text);
  await stillServes(w, forbiddenId + 1000);
  expect(w.messages().some((m) => m.id === forbiddenId && m.result !== undefined)).toBe(false);
}

describe("hostile client frames", () => {
  it("invalid JSON → -32700, nothing forwarded", async () => {
    const w = await everything();
    await expectRefused(w, echo(11, "x").slice(0, -1) + "\n", -32700, /Parse error/, 11);
  });

  it("a batch → -32600, none of its members forwarded", async () => {
    const w = await everything();
    await expectRefused(w, `[${echo(12, "batched")},${echo(13, "batched")}]\n`, -32600, /batch/, 12);
    expect(w.messages().some((m) => m.id === 13)).toBe(false);
  });

  it("duplicate keys at the top, in params and deep in arguments → -32600 naming the key", async () => {
    const w = await everything();
    await expectRefused(
      w,
      `{"jsonrpc":"2.0","id":14,"id":15,"method":"ping"}\n`,
      -32600,
      /duplicate.*"id"/,
      14,
    );
    expect(w.messages().some((m) => m.id === 15)).toBe(false);
    await expectRefused(
      w,
      `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"get-env","name":"echo","arguments":{"message":"x"}}}\n`,
      -32600,
      /duplicate.*"name"/,
      16,
      16,
    );
    await expectRefused(
      w,
      `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"message":"safe","message":"evil"}}}\n`,
      -32600,
      /duplicate.*"message"/,
      17,
      17,
    );
  });

  it("nesting deeper than 64 → -32600", async () => {
    const w = await everything();
    const deep = `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","n":${"[".repeat(100)}${"]".repeat(100)}}}}\n`;
    await expectRefused(w, deep, -32600, /deeper than 64/, 18, 18);
  });

  it("a frame over the size bound → -32600, discarded, next frame served", async () => {
    const w = await everything(["--max-frame-bytes", "16384"]);
    await expectRefused(w, echo(19, "y".repeat(20_000)) + "\n", -32600, /longer than 16384 bytes/, 19);
  });

  it("the default bound is 4 MiB", async () => {
    const w = await everything();
    const big = echo(20, "z".repeat(4 * 1024 * 1024));
    await expectRefused(w, big + "\n", -32600, /longer than 4194304 bytes/, 20);
    const fits = echo(21, "w".repeat(1024 * 1024));
    w.send(fits + "\n");
    expect((await w.response(21)).result).toEqual({
      content: [{ type: "text", text: `Echo: ${"w".repeat(1024 * 1024)}` }],
    });
  });

  it("bytes that are not UTF-8 → -32700", async () => {
    const w = await everything();
    const frame = Buffer.concat([
      Buffer.from(echo(22, "a").slice(0, -10)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}}\n'),
    ]);
    await expectRefused(w, frame, -32700, /UTF-8/, 22);
  });

  it("valid JSON that is not JSON-RPC 2.0 → -32600", async () => {
    const w = await everything();
    await expectRefused(w, `{"jsonrpc":"1.0","id":23,"method":"ping"}\n`, -32600, /jsonrpc/, 23, 23);
    await expectRefused(w, `"tools/call"\n`, -32600, /JSON object/, 24);
    await expectRefused(
      w,
      `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":[1]}\n`,
      -32600,
      /params/,
      25,
      25,
    );
  });

  it("forwards the checked object re-serialized, not the original bytes, each number as written", async () => {
    wrapper = new RawWrapper(wrapCommand([], [NODE, join(FIXTURES, "hostileServer.mjs")]));
    const w = wrapper;
    await w.initialize();
    w.send(
      `  {  "jsonrpc" : "2.0", "id": 26, "method": "tools/call", "params": {"name": "r\\u0061w", "arguments": {"k": 1E2}}}  \r\n`,
    );
    const seen = ((await w.response(26)).result as { content: Array<{ text: string }> }).content[0]!.text;
    expect(seen).toBe(
      '{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"raw","arguments":{"k":1E2}}}',
    );
  });
});

describe("hostile server frames", () => {
  it("passes no malformed frame on, reports each on stderr; the first refused answer settles the call", async () => {
    wrapper = new RawWrapper(
      wrapCommand(["--max-frame-bytes", "4096"], [NODE, join(FIXTURES, "hostileServer.mjs")]),
    );
    const w = wrapper;
    await w.initialize();
    w.sendJson({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "emit", arguments: {} } });
    // The first frame that answers id 5 unambiguously (duplicate keys) is refused, and the call gets that
    // refusal as its error at once; the later clean answer is a second answer and is dropped.
    const answer = await w.response(5);
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32603,
        message: expect.stringContaining("refused the server's answer (duplicate-key)"),
      },
    });
    await w.until(() => (w.stderr.match(/dropped a server frame/g) ?? []).length >= 7);
    for (const problem of [
      "invalid-json",
      "duplicate-key",
      "batch",
      "too-deep",
      "oversize",
      "invalid-utf8",
      "not-json-rpc",
    ]) {
      expect(w.stderr).toContain(`dropped a server frame (${problem})`);
    }
    expect(w.messages().filter((m) => m.id === 5)).toHaveLength(1);
    await w.until(() => w.stderr.includes("which is not in flight"));
    w.sendJson({ jsonrpc: "2.0", id: 6, method: "ping" });
    expect(await w.response(6)).toEqual({ jsonrpc: "2.0", id: 6, result: {} });
  });
});

describe("progress and cancellation through the proxy", () => {
  it("every progress notification arrives, in order, before the answer", async () => {
    const w = await everything();
    w.sendJson({
      jsonrpc: "2.0",
      id: 29,
      method: "tools/call",
      params: {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.4, steps: 4 },
        _meta: { progressToken: "p29" },
      },
    });
    await w.response(29);
    const relevant = w
      .messages()
      .filter(
        (m) =>
          m.id === 29 ||
          (m.method === "notifications/progress" &&
            (m.params as { progressToken: string }).progressToken === "p29"),
      );
    expect(
      relevant.map((m) => (m.id === 29 ? "answer" : (m.params as { progress: number }).progress)),
    ).toEqual([1, 2, 3, 4, "answer"]);
  });

  it("a cancelled call gets no answer from the server; an uncancelled one does", async () => {
    const w = await everything();
    const call = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.6, steps: 3 },
        _meta: { progressToken: `p${id}` },
      },
    });
    w.sendJson(call(30));
    w.sendJson(call(31));
    // Progress for both arrives through the proxy; then cancel one.
    await w.until(() =>
      w
        .messages()
        .some(
          (m) =>
            m.method === "notifications/progress" &&
            (m.params as { progressToken: string }).progressToken === "p30",
        ),
    );
    w.sendJson({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 30, reason: "e2e" },
    });
    await w.response(31);
    await new Promise((r) => setTimeout(r, 300));
    expect(w.messages().some((m) => m.id === 30)).toBe(false);
    await stillServes(w, 32);
  });
});
