import { describe, expect, it } from "vitest";
import { readFrame } from "../../../../src/engine/rpc/inbound.js";
import { classifyMessage } from "../../../../src/engine/rpc/jsonRpc.js";

const frame = (text: string) => readFrame({ kind: "text", text });

describe("classifyMessage", () => {
  it.each([
    { value: { jsonrpc: "2.0", id: 1, method: "ping" }, kind: "request" },
    { value: { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x" } }, kind: "request" },
    { value: { jsonrpc: "2.0", method: "notifications/initialized" }, kind: "notification" },
    { value: { jsonrpc: "2.0", id: 1, result: {} }, kind: "response" },
    { value: { jsonrpc: "2.0", id: 1, result: null }, kind: "response" },
    { value: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }, kind: "response" },
    { value: { jsonrpc: "2.0", id: 1, error: { code: 1, message: "x", data: [1] } }, kind: "response" },
  ])("accepts $value as $kind", ({ value, kind }) => {
    expect(classifyMessage(value).kind).toBe(kind);
  });

  it.each([
    { value: "hello", why: "a message must be a JSON object" },
    { value: null, why: "a message must be a JSON object" },
    { value: { id: 1, method: "ping" }, why: '"jsonrpc" member must be "2.0"' },
    { value: { jsonrpc: "1.0", id: 1, method: "ping" }, why: '"jsonrpc" member must be "2.0"' },
    { value: { jsonrpc: "2.0", id: 1, method: 5 }, why: '"method" member must be a string' },
    {
      value: { jsonrpc: "2.0", id: null, method: "ping" },
      why: 'request "id" must be a string or an integer',
    },
    {
      value: { jsonrpc: "2.0", id: 1.5, method: "ping" },
      why: 'request "id" must be a string or an integer',
    },
    { value: { jsonrpc: "2.0", id: {}, method: "ping" }, why: 'request "id" must be a string or an integer' },
    { value: { jsonrpc: "2.0", id: 1, method: "x", params: [1] }, why: '"params" member must be an object' },
    { value: { jsonrpc: "2.0", id: 1, method: "x", params: null }, why: '"params" member must be an object' },
    { value: { jsonrpc: "2.0", id: 1, method: "x", result: {} }, why: "both" },
    { value: { jsonrpc: "2.0", id: 1 }, why: "exactly one of" },
    { value: { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "m" } }, why: "exactly one of" },
    { value: { jsonrpc: "2.0", result: {} }, why: 'response needs an "id"' },
    { value: { jsonrpc: "2.0", id: null, result: {} }, why: 'response "id" must be' },
    { value: { jsonrpc: "2.0", id: 1, error: { code: "x", message: "m" } }, why: 'integer "code"' },
    { value: { jsonrpc: "2.0", id: 1, error: "boom" }, why: 'integer "code"' },
  ])("rejects $value", ({ value, why }) => {
    const result = classifyMessage(value);
    expect(result.kind).toBe("invalid");
    expect(result.kind === "invalid" && result.reason).toContain(why);
  });
});

describe("readFrame", () => {
  it.each([
    { text: "{bad", code: -32700, problem: "invalid-json" },
    { text: "", code: -32700, problem: "invalid-json" },
    { text: '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', code: -32600, problem: "batch" },
    { text: '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', code: -32600, problem: "duplicate-key" },
    {
      text: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"p":1,"p":2}}}',
      code: -32600,
      problem: "duplicate-key",
    },
    {
      text: `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${"[".repeat(64)}${"]".repeat(64)}}}`,
      code: -32600,
      problem: "too-deep",
    },
    { text: "42", code: -32600, problem: "not-json-rpc" },
    { text: '{"jsonrpc":"2.0","id":1}', code: -32600, problem: "not-json-rpc" },
  ])("rejects $problem: $text", ({ text, code, problem }) => {
    const result = frame(text);
    expect(result).toMatchObject({ ok: false, code, problem });
  });

  it("names the problem in the message", () => {
    const dup = frame('{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1,"a":2}}');
    expect(dup.ok === false && dup.message).toMatch(/duplicate.*"a"/);
    const deep = frame(
      `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${"[".repeat(70)}${"]".repeat(70)}}}`,
    );
    expect(deep.ok === false && deep.message).toMatch(/deeper than 64/);
  });

  it("accepts nesting of exactly 64 levels", () => {
    // The message object is level 1, params level 2: 62 more arrays make 64.
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${"[".repeat(62)}${"]".repeat(62)}}}`;
    expect(frame(text).ok).toBe(true);
  });

  it("rejects oversize and non-UTF-8 markers", () => {
    expect(readFrame({ kind: "oversize", limitBytes: 10 })).toMatchObject({
      ok: false,
      code: -32600,
      problem: "oversize",
    });
    expect(readFrame({ kind: "invalid-utf8" })).toMatchObject({
      ok: false,
      code: -32700,
      problem: "invalid-utf8",
    });
  });

  it("returns the parsed message for a valid frame", () => {
    expect(frame('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}')).toEqual({
      ok: true,
      kind: "request",
      message: { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} },
    });
  });
});
