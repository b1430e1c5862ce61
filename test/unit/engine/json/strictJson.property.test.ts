import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStrictJson } from "../../../../src/engine/json/strictJson.js";
import { referenceCheck } from "./referenceStrictJson.js";

const pointerToken = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

/** Any JSON value, with unicode strings (names included) and nesting well under the default limit. */
const jsonValue = fc.jsonValue({ maxDepth: 6, stringUnit: "grapheme" });

/** Spells a member name differently but equal after unescaping: every code unit as a \u escape. */
const escapeEveryUnit = (name: string) =>
  '"' +
  [...Array(name.length).keys()]
    .map((i) => "\\u" + name.charCodeAt(i).toString(16).padStart(4, "0"))
    .join("") +
  '"';

/**
 * Serializes `value` like JSON.stringify, but the `target`-th non-empty object (in reading order) gets one
 * more member, repeating the name of its `pick`-th member, placed after that member. Returns the text and
 * where the duplicate is (offset of its name, pointer of the member), or null when there is no object.
 */
function serializeWithDuplicate(
  value: unknown,
  target: number,
  pick: number,
  spellEscaped: boolean,
): { text: string; offset: number; path: string } | null {
  const hosts: number[] = [];
  let seen = 0;
  const count = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(count);
    else if (v !== null && typeof v === "object") {
      if (Object.keys(v).length > 0) hosts.push(seen++);
      Object.values(v).forEach(count);
    }
  };
  count(value);
  if (hosts.length === 0) return null;
  const chosen = target % hosts.length;

  let index = 0;
  let found: { offset: number; path: string } | null = null;
  let out = "";
  const write = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      out += "[";
      v.forEach((item, i) => {
        if (i > 0) out += ",";
        write(item, `${path}/${i}`);
      });
      out += "]";
      return;
    }
    if (v === null || typeof v !== "object") {
      out += JSON.stringify(v);
      return;
    }
    const entries = Object.entries(v);
    const isHost = entries.length > 0 && index++ === chosen;
    const dupOf = isHost ? pick % entries.length : -1;
    out += "{";
    entries.forEach(([name, member], i) => {
      if (i > 0) out += ",";
      out += JSON.stringify(name) + ":";
      write(member, `${path}/${pointerToken(name)}`);
      if (i === dupOf) {
        out += ",";
        const memberPath = `${path}/${pointerToken(name)}`;
        if (found === null) found = { offset: out.length, path: memberPath };
        out += (spellEscaped ? escapeEveryUnit(name) : JSON.stringify(name)) + ":0";
      }
    });
    out += "}";
  };
  write(value, "");
  return found === null ? null : { text: out, ...(found as { offset: number; path: string }) };
}

/** A container nest exactly `kinds.length` deep: true = object, false = array. */
function nest(kinds: boolean[], innermost: string): string {
  let text = innermost;
  for (let i = kinds.length - 1; i >= 0; i--) text = kinds[i] ? `{"k${i}":${text}}` : `[${text}]`;
  return text;
}

describe("parseStrictJson properties", () => {
  it("agrees with JSON.parse on anything JSON.stringify writes (compact and indented)", () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom(undefined, 2, "\t"), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  it("detects a duplicate member injected anywhere, however its name is spelled", () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(), fc.nat(), fc.boolean(), (value, target, pick, escaped) => {
        const dup = serializeWithDuplicate(value, target, pick, escaped);
        fc.pre(dup !== null);
        const result = parseStrictJson(dup!.text);
        expect(result).toMatchObject({
          ok: false,
          code: "E_JSON_DUPLICATE_KEY",
          offset: dup!.offset,
          path: dup!.path,
        });
        // The native parser would have silently kept the last value.
        expect(() => JSON.parse(dup!.text)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it("admits nesting exactly maxDepth deep and rejects maxDepth + 1", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 150 }),
        fc.array(fc.boolean(), { minLength: 151, maxLength: 151 }),
        fc.constantFrom("1", "[]", "{}", '"s"'),
        (maxDepth, kinds, leaf) => {
          // A non-scalar leaf is one more level itself.
          const extra = leaf === "[]" || leaf === "{}" ? 1 : 0;
          const atLimit = nest(kinds.slice(0, maxDepth - extra), leaf);
          const beyond = nest(kinds.slice(0, maxDepth + 1 - extra), leaf);
          expect(parseStrictJson(atLimit, { maxDepth }).ok).toBe(true);
          expect(parseStrictJson(beyond, { maxDepth })).toMatchObject({ ok: false, code: "E_JSON_TOO_DEEP" });
        },
      ),
      { numRuns: 300 },
    );
  });

  // Differential tests: on arbitrary and corrupted texts the scanner must agree with V8 on what is JSON,
  // and with the plain reference checker on which problem comes first, where, and in which value.
  const jsonish = fc.string({
    unit: fc.constantFrom(...'{}[]:,"\\/ \n\t0123456789-+.eEtrufalsnbx\u0001\u00e9'.split("")),
    maxLength: 40,
  });
  const corrupted = fc
    .tuple(
      jsonValue,
      fc.nat(),
      fc.nat(),
      fc.constantFrom(...'{}[]:,"\\ 0-.eu'.split("")),
      fc.constantFrom(0, 1, 2),
    )
    .map(([value, at, at2, ch, edit]) => {
      const text = JSON.stringify(value);
      const i = text.length === 0 ? 0 : at % text.length;
      if (edit === 0) return text.slice(0, i) + text.slice(i + 1); // delete
      if (edit === 1) return text.slice(0, i) + ch + text.slice(i); // insert
      const j = text.length === 0 ? 0 : at2 % text.length;
      return text.slice(0, i) + text.slice(j, j + 3) + text.slice(i); // duplicate a fragment
    });

  for (const [name, texts] of [
    ["arbitrary", jsonish],
    ["corrupted", corrupted],
  ] as const) {
    it(`on ${name} texts: same verdict as JSON.parse and the reference checker`, () => {
      fc.assert(
        fc.property(texts, fc.integer({ min: 1, max: 8 }), (text, maxDepth) => {
          const result = parseStrictJson(text, { maxDepth });
          let native: { value: unknown } | null;
          try {
            native = { value: JSON.parse(text) };
          } catch {
            native = null;
          }
          if (result.ok) {
            expect(native).toEqual({ value: result.value });
          } else if (result.code === "E_JSON_SYNTAX") {
            expect(native).toBeNull();
          }
          const reference = referenceCheck(text, maxDepth);
          if (reference === null) expect(result.ok).toBe(true);
          else expect(result).toMatchObject({ ok: false, ...reference });
        }),
        { numRuns: 3000 },
      );
    });
  }
});
