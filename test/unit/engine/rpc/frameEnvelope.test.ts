// What can be told of a refused frame: its top-level id when unambiguous, and whether it is a request.
import { describe, expect, it } from "vitest";
import { frameEnvelope } from "../../../../src/engine/rpc/frameEnvelope.js";

describe("frameEnvelope", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":1,"a":2}}', 7, true],
    ['{"jsonrpc":"2.0","id":"abc","result":{"id":9}}', "abc", false],
    ['{"id":1,"id":2,"method":"x"}', null, true],
    ['{"id":{"n":1},"method":"x"}', null, true],
    ['{"id":null,"method":"x"}', null, true],
    ['{"method":"notifications/x"}', null, true],
    ['[{"id":1}]', null, false],
    ['"id"', null, false],
    [`{"id":3,"result":${"[".repeat(6000)}${"]".repeat(6000)}}`, 3, false],
    ['{"a":{"id":5},"b":"\\"id\\":6","id":-1.5e2,"method":"m"}', -150, true],
    ['{"id":4,"method":"x"', 4, true],
  ])("%s → id %s, request %s", (text, id, hasMethod) => {
    expect(frameEnvelope(text)).toEqual({ id, hasMethod });
  });
});
