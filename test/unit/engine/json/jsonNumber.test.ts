// Numbers kept as written: parsing keeps every literal a double would change, writing gives it back
// byte for byte, and the exact decimal arithmetic the schema keywords use.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareDecimals,
  decimalOf,
  decimalText,
  isIntegral,
  isMultipleOf,
} from "../../../../src/engine/json/decimal.js";
import { JsonNumber, writeJson } from "../../../../src/engine/json/jsonNumber.js";
import { parseStrictJson } from "../../../../src/engine/json/strictJson.js";
import { canonicalJson } from "../../../../src/engine/pins/canonicalJson.js";

const exact = (text: string) => {
  const parsed = parseStrictJson(text, { exactNumbers: true });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

/** A JSON number literal, of every shape RFC 8259 allows. */
const literal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,40}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,40}$/), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.stringMatching(/^[0-9]{1,4}$/)),
      {
        nil: undefined,
      },
    ),
  )
  .map(
    ([neg, int, frac, exp]) =>
      `${neg ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}${exp === undefined ? "" : exp.join("")}`,
  );

describe("numbers kept as written", () => {
  it.each([
    "9007199254740993",
    "9223372036854775809",
    "100000000000000000000000",
    "1e400",
    "-0",
    "1.0",
    "1E2",
    "0.10000000000000000000000001",
    "-1e-400",
  ])("%s is written back byte for byte, inside an object and an array", (lit) => {
    const text = `{"a":${lit},"b":[${lit},{"c":${lit}}],"s":"${lit}"}`;
    expect(writeJson(exact(text))).toBe(text);
  });

  it("any literal, anywhere, comes back as written (property)", () => {
    fc.assert(
      fc.property(fc.array(literal, { minLength: 1, maxLength: 6 }), (lits) => {
        const text = `{"id":1,"args":{"n":[${lits.join(",")}]}}`;
        expect(writeJson(exact(text))).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it("ordinary numbers stay plain numbers; only literals a double changes become JsonNumbers", () => {
    const value = exact('{"a":42,"b":0.5,"c":-7,"d":1e2,"e":12345678901234567890}') as Record<
      string,
      unknown
    >;
    expect([value.a, value.b, value.c]).toEqual([42, 0.5, -7]);
    expect(value.d).toBeInstanceOf(JsonNumber);
    expect((value.e as JsonNumber).text).toBe("12345678901234567890");
    // Outside toolgate's serializer a JsonNumber is its double, never a sentinel.
    expect(JSON.stringify(value.e)).toBe("12345678901234567000");
    expect(JSON.stringify(new JsonNumber("1e400"))).toBe("null");
  });

  it("a string can never become a number, whatever it holds", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (s, t) => {
        const text = JSON.stringify({ s: `\u0000${s}`, t: `${t}\u0000tgn` });
        expect(writeJson(exact(text))).toBe(text);
      }),
    );
  });

  it("exact canonical form: a double's value as RFC 8785 writes it, else the exact value", () => {
    const c = (text: string) => canonicalJson(exact(text), { exactNumbers: true });
    expect(c('{"b":1.0,"a":1e0}')).toBe('{"a":1,"b":1}');
    expect(c('{"n":9007199254740993}')).toBe('{"n":9007199254740993}');
    expect(c('{"n":9007199254740992}')).toBe('{"n":9007199254740992}');
    expect(c('{"n":1e400}')).toBe('{"n":1e+400}');
    expect(c('{"n":-0}')).toBe('{"n":0}');
  });

  it("RFC 8785 form (pins' schema_hash): every number its double, as the reference defines it", () => {
    expect(canonicalJson(exact('{"n":9007199254740993,"m":1e2}'))).toBe('{"m":100,"n":9007199254740992}');
    expect(() => canonicalJson(exact('{"n":1e400}'))).toThrow(/beyond what a double holds/);
  });
});

describe("exact decimals", () => {
  const d = (s: string) => decimalOf(s)!;
  it("compares literals exactly, whatever their spelling", () => {
    expect(compareDecimals(d("9007199254740993"), d("9007199254740992"))).toBe(1);
    expect(compareDecimals(d("1.0"), d("1e0"))).toBe(0);
    expect(compareDecimals(d("-1e400"), d("-1e399"))).toBe(-1);
    expect(compareDecimals(d("0.1"), d("0.10000000000000000001"))).toBe(-1);
    expect(compareDecimals(d("-0"), d("0.0"))).toBe(0);
    // Equal negatives are plain 0, never -0 (found by the property below with seed 960622148).
    expect(Object.is(compareDecimals(d("-11"), d("-11")), 0)).toBe(true);
  });

  it("multipleOf and integers exactly", () => {
    expect(isMultipleOf(d("0.3"), d("0.1"))).toBe(true);
    expect(isMultipleOf(d("9007199254740993"), d("2"))).toBe(false);
    expect(isMultipleOf(d("9007199254740994"), d("2"))).toBe(true);
    expect(isMultipleOf(d("1e400"), d("7"))).toBe(false);
    expect(isMultipleOf(d("1e400"), d("2.5"))).toBe(true);
    expect(isIntegral(d("1.50e1"))).toBe(true);
    expect(isIntegral(d("1.05e1"))).toBe(false);
    expect(decimalText(d("9.007199254740993e15"))).toBe("9007199254740993");
  });

  it("agrees with doubles wherever doubles are exact (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (a, b) => {
        expect(compareDecimals(d(String(a)), d(String(b)))).toBe(Math.sign(a - b));
        if (b !== 0) expect(isMultipleOf(d(String(a)), d(String(b)))).toBe(a % b === 0);
      }),
    );
  });
});
