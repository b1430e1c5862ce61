import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolgateError } from "../../../../src/engine/errors.js";
import { canonicalJson } from "../../../../src/engine/pins/canonicalJson.js";
import { metaHash, schemaHash, sha256Hex } from "../../../../src/engine/pins/hashes.js";

/** Node's own SHA-256 over hand-written bytes: the expected values are not computed by the code under test. */
const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

function expectCanonicalizeError(value: unknown, fragment: string) {
  let thrown: unknown;
  try {
    canonicalJson(value);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(ToolgateError);
  expect((thrown as ToolgateError).code).toBe("E_CANONICALIZE");
  expect((thrown as ToolgateError).message).toContain(fragment);
}

describe("sha256Hex", () => {
  it("matches the FIPS 180-2 test vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("hashes a string as UTF-8", () => {
    expect(sha256Hex("é€😀")).toBe(
      sha256Hex(new Uint8Array([0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80])),
    );
  });
});

describe("canonicalJson (RFC 8785)", () => {
  it("sorts members, drops whitespace and prints numbers as doubles", () => {
    const parsed: unknown = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(parsed)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("orders member names by UTF-16 code units, not code points", () => {
    const names = ["\u20ac", "\r", "\ufb33", "1", "\ud83d\ude00", "\u0080", "\u00f6"];
    const value = Object.fromEntries(names.map((n, i) => [n, i]));
    // Compared as text: parsing back would let the integer-like name "1" jump to the front.
    expect(canonicalJson(value)).toBe(
      '{"\\r":1,"1":3,"\u0080":5,"\u00f6":6,"\u20ac":0,"\ud83d\ude00":4,"\ufb33":2}',
    );
  });

  it("writes -0 as 0 and large or small numbers in exponent form", () => {
    expect(canonicalJson([-0, 1e21, 1e-7, 123456789012345680000, 0.1])).toBe(
      "[0,1e+21,1e-7,123456789012345680000,0.1]",
    );
  });

  it("keeps __proto__ as an ordinary member", () => {
    const value = JSON.parse('{"b":1,"__proto__":{"x":1}}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"b":1}');
  });

  it("accepts objects without a prototype", () => {
    const value = Object.assign(Object.create(null) as object, { b: 2, a: 1 });
    expect(canonicalJson(value)).toBe('{"a":1,"b":2}');
  });

  it("leaves out object members that are undefined, as JSON.stringify does", () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it.each([
    [Number.NaN, "NaN at the top level is not a JSON number"],
    [{ maximum: Number.POSITIVE_INFINITY }, "Infinity at /maximum is not a JSON number"],
    [[Number.NEGATIVE_INFINITY], "-Infinity at /0 is not a JSON number"],
    [undefined, "undefined at the top level is not a JSON value"],
    [[1, undefined], "undefined at /1 is not a JSON value"],
    [1n, "a bigint at the top level is not a JSON value"],
    [{ a: { "b/c": 2n } }, "a bigint at /a/b~1c is not a JSON value"],
    [{ f: () => 1 }, "a function at /f is not a JSON value"],
    [{ toJSON: () => "sneaky" }, "a function at /toJSON is not a JSON value"],
    [Symbol("s"), "a symbol at the top level is not a JSON value"],
    [new Date(0), "a Date at the top level is not a JSON value"],
    [{ m: new Map() }, "a Map at /m is not a JSON value"],
    // eslint-disable-next-line no-sparse-arrays -- the hole is what is tested
    [[1, , 3], "the array at the top level has a hole at index 1"],
    ["\ud800", "the string at the top level has an unpaired surrogate"],
    [{ "\udc00": 1 }, "the member name at /\udc00 has an unpaired surrogate"],
  ])("refuses %s", (value, fragment) => {
    expectCanonicalizeError(value, fragment);
  });

  it("refuses a value that contains itself", () => {
    const value: Record<string, unknown> = { a: [] };
    (value.a as unknown[]).push(value);
    expectCanonicalizeError(value, "the value contains itself at /a/0");
  });

  it("accepts the same value reached twice (not a cycle)", () => {
    const shared = { type: "string" };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"type":"string"},"b":{"type":"string"}}');
  });

  const jsonValue = fc.jsonValue({ maxDepth: 5, stringUnit: "grapheme" });

  it("property: the canonical text parses back to the same value", () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        // JSON cannot write -0, so compare with what JSON.stringify round-trips to.
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it("property: member order and whitespace do not change the canonical text", () => {
    const shuffled = (value: unknown, seed: number): unknown => {
      if (Array.isArray(value)) return value.map((v, i) => shuffled(v, seed + i + 1));
      if (value === null || typeof value !== "object") return value;
      const entries = Object.entries(value);
      // Rotate and reverse by the seed: a deterministic reordering that differs per object.
      const k = entries.length === 0 ? 0 : seed % entries.length;
      const reordered = [...entries.slice(k), ...entries.slice(0, k)];
      if (seed % 2 === 1) reordered.reverse();
      return Object.fromEntries(reordered.map(([n, v], i) => [n, shuffled(v, seed * 31 + i)]));
    };
    fc.assert(
      fc.property(jsonValue, fc.nat(), (value, seed) => {
        const reordered = JSON.parse(JSON.stringify(shuffled(value, seed), null, 2)) as unknown;
        expect(canonicalJson(reordered)).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });
});

describe("schemaHash", () => {
  it("is the SHA-256 of the canonical text", () => {
    const schema = JSON.parse('{ "type": "integer", "maximum": 100 }') as unknown;
    expect(schemaHash(schema)).toBe(sha256('{"maximum":100,"type":"integer"}'));
  });

  it("does not drift when a server reorders keys or re-emits 100 as 1e2 (spec)", () => {
    const original = JSON.parse('{"maximum":100,"type":"integer"}') as unknown;
    const reemitted = JSON.parse('{"type":"integer","maximum":1e2}') as unknown;
    expect(schemaHash(reemitted)).toBe(schemaHash(original));
  });

  it("changes when the schema changes", () => {
    const base = schemaHash({ type: "integer", maximum: 100 });
    expect(schemaHash({ type: "integer", maximum: 101 })).not.toBe(base);
    expect(schemaHash({ type: "number", maximum: 100 })).not.toBe(base);
    expect(schemaHash({ type: "integer", maximum: 100, minimum: 0 })).not.toBe(base);
    expect(schemaHash({ type: "integer", maximum: "100" })).not.toBe(base);
    expect(schemaHash({ type: "integer" })).not.toBe(base);
  });

  it("hashes `null` for a tool that declares no schema", () => {
    expect(schemaHash(undefined)).toBe(sha256("null"));
    expect(schemaHash(undefined)).toBe("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
    expect(schemaHash(null)).toBe(schemaHash(undefined));
    expect(schemaHash({})).toBe(sha256("{}"));
    expect(schemaHash({})).not.toBe(schemaHash(undefined));
  });

  it("a typical MCP inputSchema, against hand-written canonical bytes", () => {
    const declared = {
      type: "object",
      properties: { path: { type: "string", description: "Path to read — UTF-8 \u00e9" } },
      required: ["path"],
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    };
    expect(schemaHash(declared)).toBe(
      sha256(
        '{"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false,' +
          '"properties":{"path":{"description":"Path to read — UTF-8 é","type":"string"}},' +
          '"required":["path"],"type":"object"}',
      ),
    );
  });

  it("documents the 2^53 blind spot: two different integers that share a double share a pin (spec)", () => {
    // A validator reads these literals as different integers, so the edit admits different arguments,
    // but RFC 8785 prints both as the same double. A later issue adds an exact hash.
    const before = JSON.parse('{"maximum":9007199254740993}') as unknown;
    const after = JSON.parse('{"maximum":9007199254740992}') as unknown;
    expect(schemaHash(after)).toBe(schemaHash(before));
    expect(schemaHash(after)).toBe(sha256('{"maximum":9007199254740992}'));
    // Below 2^53 every integer edit is seen.
    const below = JSON.parse('{"maximum":9007199254740991}') as unknown;
    expect(schemaHash(below)).not.toBe(schemaHash(after));
  });

  it("throws E_CANONICALIZE for a schema JSON cannot express", () => {
    expect(() => schemaHash({ maximum: Number.NaN })).toThrow(ToolgateError);
  });
});

describe("metaHash", () => {
  it("is the SHA-256 of the description bytes verbatim", () => {
    expect(metaHash("Reads a file.")).toBe(sha256("Reads a file."));
    expect(metaHash("Reads a file. ")).not.toBe(metaHash("Reads a file."));
    expect(metaHash("caf\u00e9")).not.toBe(metaHash("cafe\u0301")); // no Unicode normalization
    expect(metaHash("line\r\n")).not.toBe(metaHash("line\n"));
  });

  it("hashes the empty string when there is no description", () => {
    expect(metaHash(undefined)).toBe(metaHash(""));
    expect(metaHash("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(metaHash(null as unknown as undefined)).toBe(metaHash(""));
  });

  it("documents that an unpaired surrogate hashes like U+FFFD (UTF-8 cannot encode it)", () => {
    expect(metaHash("a\ud800")).toBe(metaHash("a\ufffd"));
  });

  it("refuses a description that is not a string", () => {
    expect(() => metaHash(42 as unknown as string)).toThrow(/must be a string/);
  });
});
