import { describe, expect, it } from "vitest";
import { ToolgateError } from "../../../../src/engine/errors.js";
import {
  DEFAULT_MAX_JSON_DEPTH,
  parseStrictJson,
  type StrictJsonResult,
} from "../../../../src/engine/json/strictJson.js";

function expectError(result: StrictJsonResult, code: string, offset: number, path: string) {
  expect(result).toMatchObject({ ok: false, code, offset, path });
}

describe("parseStrictJson: accepts RFC 8259 JSON", () => {
  const valid: [string, unknown][] = [
    ["null", null],
    ["true", true],
    ["false", false],
    ["0", 0],
    ["-0.5e+10", -0.5e10],
    ["1E-2", 0.01],
    ['"text"', "text"],
    [" \t\r\n[1, 2 ,3 ] \n", [1, 2, 3]],
    ["{}", {}],
    ["[]", []],
    ['{"a":{"a":{"a":1}}}', { a: { a: { a: 1 } } }],
    ['[{"a":1},{"a":2}]', [{ a: 1 }, { a: 2 }]],
    ['{"a":1,"A":2}', { a: 1, A: 2 }],
    ['{"":1,"b":[]}', { "": 1, b: [] }],
    ['"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"', '"\\/\b\f\n\r\té'],
    // RFC 8259 allows unpaired surrogate escapes; JSON.parse keeps them.
    ['"\\ud800"', "\ud800"],
    ['"\u2028\u00ff\u{1f600}"', "\u2028\u00ff\u{1f600}"],
    ['{"x":"}]\\"{["}', { x: '}]"{[' }],
  ];
  it.each(valid)("%s", (text, value) => {
    expect(parseStrictJson(text)).toEqual({ ok: true, value });
  });

  it("keeps __proto__ as an ordinary own member and never changes a prototype", () => {
    const result = parseStrictJson('{"__proto__":{"polluted":true},"a":{"__proto__":null}}');
    if (!result.ok) throw new Error(result.message);
    const value = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: true });
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(value.a as object, "__proto__")).toBe(true);
  });

  it("treats __proto__ like any other name for duplicates", () => {
    expectError(parseStrictJson('{"__proto__":1,"__proto__":2}'), "E_JSON_DUPLICATE_KEY", 15, "/__proto__");
  });
});

describe("parseStrictJson: syntax errors name an offset and the value being read", () => {
  const invalid: [string, string, number, string][] = [
    // text, why, offset, path
    ["", "empty text", 0, ""],
    [" \n ", "only whitespace", 3, ""],
    ["\ufeff{}", "a byte-order mark", 0, ""],
    ["{} x", "text after the value", 3, ""],
    ["1 2", "two values", 2, ""],
    ["[1,]", "trailing comma in an array", 3, "/1"],
    ['{"a":1,}', "trailing comma in an object", 7, ""],
    ["{'a':1}", "single quotes", 1, ""],
    ["{a:1}", "unquoted name", 1, ""],
    ['{"a" 1}', "missing colon", 5, "/a"],
    ['{"a":1 "b":2}', "missing comma", 7, "/a"],
    ["[1 2]", "missing comma in an array", 3, "/0"],
    ["[1,2", "unterminated array", 4, "/1"],
    ['{"a":[1}', "mismatched bracket", 7, "/a/0"],
    ['{"a":1', "unterminated object", 6, "/a"],
    ['"abc', "unterminated string", 4, ""],
    ['"a\u0001"', "raw control character", 2, ""],
    ['["a\tb"]', "raw tab in a string", 3, "/0"],
    ['"\\x"', "invalid escape", 2, ""],
    ['"\\u12G4"', "short \\u escape", 5, ""],
    ['"\\', "backslash at the end", 2, ""],
    ['{"a\\q":1}', "bad escape in a member name", 4, ""],
    ["01", "leading zero", 1, ""],
    ["-", "lone minus", 1, ""],
    ["+1", "plus sign", 0, ""],
    [".5", "no integer part", 0, ""],
    ["1.", "no fraction digits", 2, ""],
    ["1e", "no exponent digits", 2, ""],
    ["1e+", "no exponent digits after the sign", 3, ""],
    ["0x10", "hexadecimal", 1, ""],
    ["NaN", "NaN", 0, ""],
    ["Infinity", "Infinity", 0, ""],
    ["[tru]", "truncated literal", 1, "/0"],
    ["True", "capitalised literal", 0, ""],
    ["nul", "truncated null", 0, ""],
    ["[1]/* c */", "comment", 3, ""],
    ["\u000b1", "vertical tab is not whitespace", 0, ""],
    ["\u00a01", "no-break space is not whitespace", 0, ""],
    ['{"x":{"y/~z":[0,tru]}}', "pointer tokens are escaped", 16, "/x/y~1~0z/1"],
  ];
  it.each(invalid)("%j (%s)", (text, _why, offset, path) => {
    const result = parseStrictJson(text);
    expectError(result, "E_JSON_SYNTAX", offset, path);
    expect(() => JSON.parse(text)).toThrow();
  });

  it("says what was wrong and where", () => {
    const result = parseStrictJson('{"a":[1}');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toBe(
      "invalid JSON at offset 7 (in /a/0): character '}' where ',' or ']' was expected",
    );
  });

  it("explains number mistakes", () => {
    const result = parseStrictJson("[01]");
    expect(!result.ok && result.message).toBe(
      "invalid JSON at offset 2 (in /0): a number may not have leading zeros",
    );
  });

  it("spells invisible characters", () => {
    const result = parseStrictJson('"a\u0001"');
    expect(!result.ok && result.message).toContain("control character U+0001 must be escaped");
  });
});

describe("parseStrictJson: duplicate member names", () => {
  const duplicates: [string, string, number, string][] = [
    // text, why, offset of the duplicate name, pointer of the duplicate member
    ['{"a":1,"a":2}', "plain duplicate", 7, "/a"],
    ['{"a":1,"\\u0061":2}', "same name after unescaping", 7, "/a"],
    ['{"\\u0061":1,"a":2}', "escaped first", 12, "/a"],
    ['{"/":1,"\\/":2}', "escaped solidus", 7, "/~1"],
    ['{"a":1,"b":2,"a":3}', "not adjacent", 13, "/a"],
    ['{"x":{"y":[{"a":1},{"b":1,"b":2}]}}', "deep inside arrays", 26, "/x/y/1/b"],
    ['[{"a":1,"a":1}]', "equal values too", 8, "/0/a"],
    ['{"":1,"":2}', "empty names", 6, "/"],
    ['{"a":1 , "a" :2}', "with whitespace", 9, "/a"],
    ['{"\\ud83d\\ude00":1,"\u{1f600}":2}', "surrogate pair escaped vs raw", 18, "/\u{1f600}"],
  ];
  it.each(duplicates)("%j (%s)", (text, _why, offset, path) => {
    expectError(parseStrictJson(text), "E_JSON_DUPLICATE_KEY", offset, path);
  });

  it("allows the same name in sibling and nested objects", () => {
    const text = '{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":{"b":{"a":{}}}}';
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it("allows a name again after the object that used it has closed", () => {
    const text = '{"outer":{"k":1,"j":2},"k":3,"j":4}';
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });

  it("finds a duplicate among many members (beyond the linear comparison)", () => {
    const members = Array.from({ length: 1000 }, (_, i) => `"k${i}":${i}`);
    const clean = `{"inner":{${members.join(",")}},${members.join(",")}}`;
    expect(parseStrictJson(clean).ok).toBe(true);
    const text = `{${members.join(",")},"k3":0}`;
    const offset = text.lastIndexOf('"k3"');
    expectError(parseStrictJson(text), "E_JSON_DUPLICATE_KEY", offset, "/k3");
  });

  it("a big object's names do not leak into the next sibling object", () => {
    const members = Array.from({ length: 20 }, (_, i) => `"k${i}":${i}`).join(",");
    const text = `[{${members}},{${members}}]`;
    expect(parseStrictJson(text).ok).toBe(true);
  });

  it("names the member in the message", () => {
    const result = parseStrictJson('{"params":{"name":"x","name":"y"}}');
    expect(!result.ok && result.message).toBe(
      'duplicate member name "name" at /params/name (offset 22): an object may name each member only once',
    );
  });

  it("reports the first problem in reading order", () => {
    expectError(parseStrictJson('{"a":1,"a":2,'), "E_JSON_DUPLICATE_KEY", 7, "/a");
    expectError(parseStrictJson('{"a":[1,],"a":2}'), "E_JSON_SYNTAX", 8, "/a/1");
  });
});

describe("parseStrictJson: nesting depth", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  it(`defaults to ${DEFAULT_MAX_JSON_DEPTH}`, () => {
    expect(DEFAULT_MAX_JSON_DEPTH).toBe(64);
    expect(parseStrictJson(nested(64)).ok).toBe(true);
    expectError(parseStrictJson(nested(65)), "E_JSON_TOO_DEEP", 64, "/0".repeat(64));
  });

  it("counts objects and arrays alike", () => {
    const text = '{"a":[{"b":[]}]}'; // depth 4
    expect(parseStrictJson(text, { maxDepth: 4 }).ok).toBe(true);
    expectError(parseStrictJson(text, { maxDepth: 3 }), "E_JSON_TOO_DEEP", 11, "/a/0/b");
  });

  it("maxDepth 0 admits only scalars", () => {
    expect(parseStrictJson('"x"', { maxDepth: 0 })).toEqual({ ok: true, value: "x" });
    expectError(parseStrictJson("{}", { maxDepth: 0 }), "E_JSON_TOO_DEEP", 0, "");
  });

  it("stops 100 000 unclosed brackets at the limit without overflowing the stack", () => {
    const result = parseStrictJson("[".repeat(100_000));
    expect(result).toMatchObject({ ok: false, code: "E_JSON_TOO_DEEP", offset: 64 });
    expect(!result.ok && result.message).toBe("JSON nested deeper than 64 levels at offset 64");
  });

  it("handles a million balanced brackets under a large limit without recursion", () => {
    const deep = nested(1_000_000);
    expectError(parseStrictJson(deep), "E_JSON_TOO_DEEP", 64, "/0".repeat(64));
    expect(parseStrictJson(deep, { maxDepth: 1_000_000 }).ok).toBe(true);
  });

  it("rejects a maxDepth that is not a non-negative integer", () => {
    for (const maxDepth of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => parseStrictJson("1", { maxDepth })).toThrow(ToolgateError);
    }
  });
});

describe("parseStrictJson: scratch state", () => {
  it("gives the same answer when called again after an error in the middle of a deep text", () => {
    const text = '{"a":{"b":{"c":1}},"b":{"a":2}}';
    expect(parseStrictJson('{"a":{"b":{"c":1,"c":2').ok).toBe(false);
    expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
  });
});
