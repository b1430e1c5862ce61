import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolgateError } from "../../../../src/engine/errors.js";
import { ExactInteger, parseJsonExact } from "../../../../src/engine/json/exactNumbers.js";
import { canonicalJson } from "../../../../src/engine/pins/canonicalJson.js";
import {
  exactCanonicalJson,
  exactSchemaHash,
  extractToolSchemaTexts,
  pinForTool,
  schemaNeedsExactHash,
} from "../../../../src/engine/pins/exactHash.js";
import { schemaHash } from "../../../../src/engine/pins/hashes.js";

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

function thrownCode(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof ToolgateError ? e.code : "not a ToolgateError";
  }
  return undefined;
}

describe("parseJsonExact", () => {
  it("keeps integer literals beyond the safe range as their digits", () => {
    const r = parseJsonExact(
      '{"a":9007199254740993,"b":-9007199254740993,"c":9007199254740991,"d":1e400,"e":9007199254740993.0}',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as Record<string, unknown>;
    expect(v.a).toEqual(new ExactInteger("9007199254740993"));
    expect(v.b).toEqual(new ExactInteger("-9007199254740993"));
    expect(v.c).toBe(9007199254740991);
    expect(v.d).toBe(Infinity);
    expect(v.e).toBe(9007199254740992);
  });

  it("refuses what the strict parser refuses", () => {
    expect(parseJsonExact('{"a":1,"a":2}')).toMatchObject({ ok: false, code: "E_JSON_DUPLICATE_KEY" });
    expect(parseJsonExact("[1,]")).toMatchObject({ ok: false, code: "E_JSON_SYNTAX" });
  });

  it("agrees with JSON.parse once exact integers are read as doubles", () => {
    const asDoubles = (v: unknown): unknown =>
      v instanceof ExactInteger
        ? Number(v.digits)
        : Array.isArray(v)
          ? v.map(asDoubles)
          : typeof v === "object" && v !== null
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asDoubles(x)]))
            : v;
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const r = parseJsonExact(text);
        expect(r.ok).toBe(true);
        expect(r.ok && asDoubles(r.value)).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a __proto__ member as data", () => {
    const r = parseJsonExact('{"__proto__":{"x":1}}');
    expect(r.ok && Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(r.ok && JSON.stringify(r.value)).toBe('{"__proto__":{"x":1}}');
  });
});

describe("exact_schema_hash", () => {
  it("the spec's 100 vs 1e2 case keeps both pins", () => {
    expect(exactSchemaHash('{"maximum": 100}')).toBe(exactSchemaHash('{"maximum":1e2}'));
    expect(schemaHash(JSON.parse('{"maximum": 100}'))).toBe(schemaHash(JSON.parse('{"maximum":1e2}')));
  });

  it("...993 vs ...992 changes the exact hash but not schema_hash", () => {
    const a = '{"type":"integer","maximum":9007199254740993}';
    const b = '{"type":"integer","maximum":9007199254740992}';
    expect(schemaHash(JSON.parse(a))).toBe(schemaHash(JSON.parse(b)));
    expect(exactSchemaHash(a)).not.toBe(exactSchemaHash(b));
    // Written out by hand: the exact digits stay, members sorted.
    expect(exactSchemaHash(a)).toBe(sha256('{"maximum":9007199254740993,"type":"integer"}'));
    expect(exactSchemaHash(b)).toBe(sha256('{"maximum":9007199254740992,"type":"integer"}'));
  });

  it.each([
    ['{"enum":[18446744073709551613, 18446744073709551614]}', "an enum below 2^64"],
    ['{"const":-9007199254740993}', "a negative const"],
    ['{"minimum":-9223372036854775807}', "near the int64 minimum"],
  ])("sees an edit of %s (%s)", (text) => {
    const edited = text.replace(
      /(\d)(\D*)$/,
      (_m, d: string, rest: string) => `${(Number(d) + 1) % 10}${rest}`,
    );
    expect(edited).not.toBe(text);
    expect(exactSchemaHash(edited)).not.toBe(exactSchemaHash(text));
  });

  it.each([
    ['{"minimum":123456789012345678901234567890}', '{"minimum":123456789012345678901234567891}'],
    ['{"enum":[18446744073709551616]}', '{"enum":[18446744073709551617]}'],
    ['{"const":-9223372036854775809}', '{"const":-9223372036854775810}'],
  ])("past the 64-bit range two literals with one double are one value: %s ≡ %s", (a, b) => {
    expect(exactSchemaHash(a)).toBe(exactSchemaHash(b));
    expect(exactSchemaHash(a)).toBe(schemaHash(JSON.parse(a)));
  });

  it("equals schema_hash when no literal is beyond 2^53 (RFC 8785 otherwise)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v, null, 1);
        expect(exactSchemaHash(text)).toBe(schemaHash(JSON.parse(text)));
        expect(exactCanonicalJson(JSON.parse(text))).toBe(canonicalJson(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it("ignores member order and whitespace", () => {
    expect(exactSchemaHash('{ "b": 9007199254740993, "a": [1e2, "x"] }')).toBe(
      exactSchemaHash('{"a":[100,"x"],"b":9007199254740993}'),
    );
  });

  it("a literal with a fraction or exponent is a double, as validators read it", () => {
    expect(exactSchemaHash('{"m":9007199254740993.0}')).toBe(exactSchemaHash('{"m":9007199254740992}'));
    expect(exactSchemaHash('{"m":9.007199254740993e15}')).not.toBe(exactSchemaHash('{"m":9007199254740993}'));
  });

  it("schemaNeedsExactHash: only integer literals outside ±(2^53 − 1)", () => {
    expect(schemaNeedsExactHash('{"maximum":9007199254740991}')).toBe(false);
    expect(schemaNeedsExactHash('{"maximum":9007199254740992}')).toBe(true);
    expect(schemaNeedsExactHash('{"minimum":-9007199254740992}')).toBe(true);
    expect(schemaNeedsExactHash('{"maximum":1e300}')).toBe(false);
    expect(schemaNeedsExactHash('{"description":"9007199254740993"}')).toBe(false);
  });

  it("hashes an absent schema as null; text that is not strict JSON fails with E_CANONICALIZE", () => {
    expect(exactSchemaHash(undefined)).toBe(sha256("null"));
    expect(thrownCode(() => exactSchemaHash('{"a":1,"a":1}'))).toBe("E_CANONICALIZE");
    expect(thrownCode(() => exactSchemaHash('{"a":1e400}'))).toBe("E_CANONICALIZE");
  });
});

describe("extractToolSchemaTexts", () => {
  const response =
    '{"jsonrpc":"2.0","id":3,"result":{"tools":[' +
    '{"name":"a","inputSchema":{ "type" : "object", "properties": {"n": {"maximum": 9007199254740993}} }},' +
    '{"name":"b","description":"x","inputSchema":{"type":"object"}},' +
    '{"name":"c"},{"inputSchema":{}}],"nextCursor":"p2"}}';

  it("cuts each tool's inputSchema text out of a response or a result", () => {
    const texts = extractToolSchemaTexts(response);
    expect([...texts.keys()]).toEqual(["a", "b"]);
    expect(texts.get("a")).toBe('{ "type" : "object", "properties": {"n": {"maximum": 9007199254740993}} }');
    expect(texts.get("b")).toBe('{"type":"object"}');
    const result = extractToolSchemaTexts(
      '{"tools":[{"name":"z","inputSchema":{"maximum":18446744073709551617}}]}',
    );
    expect(result.get("z")).toBe('{"maximum":18446744073709551617}');
  });

  it("refuses text without a tools list, duplicate tool names, and text that is not strict JSON", () => {
    expect(thrownCode(() => extractToolSchemaTexts('{"result":{}}'))).toBe("E_TOOLS_LIST");
    expect(
      thrownCode(() =>
        extractToolSchemaTexts('{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}'),
      ),
    ).toBe("E_TOOLS_LIST");
    expect(thrownCode(() => extractToolSchemaTexts('{"tools":[],"tools":[]}'))).toBe("E_TOOLS_LIST");
  });
});

describe("pinForTool", () => {
  const schemaText = '{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}';
  const tool = { name: "count", description: "Counts.", inputSchema: JSON.parse(schemaText) as unknown };

  it("records schema_hash and meta_hash, and exact_schema_hash only when the schema needs it", () => {
    const plain = { name: "echo", description: "Echoes.", inputSchema: { type: "object" } };
    expect(pinForTool(plain, '{"type":"object"}', "srv")).toEqual({
      server_id: "srv",
      tool_name: "echo",
      schema_hash: sha256('{"type":"object"}'),
      meta_hash: sha256("Echoes."),
    });
    expect(pinForTool(plain)).toEqual({
      tool_name: "echo",
      schema_hash: sha256('{"type":"object"}'),
      meta_hash: sha256("Echoes."),
    });
    expect(pinForTool(tool, schemaText)).toEqual({
      tool_name: "count",
      schema_hash: schemaHash(tool.inputSchema),
      meta_hash: sha256("Counts."),
      exact_schema_hash: exactSchemaHash(schemaText),
    });
  });

  it("refuses to pin a big-integer schema without its raw text, or with text of another schema", () => {
    expect(thrownCode(() => pinForTool(tool))).toBe("E_PIN_EXACT_TEXT");
    expect(thrownCode(() => pinForTool(tool, '{"type":"object"}'))).toBe("E_PIN_INPUT");
  });
});
