/**
 * Building the value of a JSON text the strict scanner (scanner.ts) has accepted, with each number literal
 * made by the caller: pins keep integers beyond 2^53 (exactNumbers.ts), frames keep every literal a double
 * would change (jsonNumber.ts). Iterative over the text, recursive over nesting, which the scan has bounded.
 */

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

/**
 * Builds the value of a text the strict scanner accepted, each number literal made by `numberOf` (given the
 * literal and whether it is a plain integer: no fraction, no exponent). `spans`, when given, learns where
 * each object and array sits in the text.
 */
export function buildJson(
  text: string,
  numberOf: (literal: string, plainInteger: boolean) => unknown,
  spans?: WeakMap<object, readonly [number, number]>,
): unknown {
  let pos = 0;

  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) pos++;
      else return;
    }
  };
  const str = (): string => {
    const start = pos;
    pos++;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x5c) {
        escaped = true;
        pos += 2;
      } else if (c === 0x22) {
        pos++;
        break;
      } else {
        pos++;
      }
    }
    return escaped ? (JSON.parse(text.slice(start, pos)) as string) : text.slice(start + 1, pos - 1);
  };
  const value = (): unknown => {
    ws();
    const c = text[pos];
    if (c === "{") {
      const start = pos++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[pos] === "}") pos++;
      else {
        for (;;) {
          ws();
          const key = str();
          ws();
          pos++; // ':'
          const v = value();
          if (key === "__proto__") {
            Object.defineProperty(obj, key, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          } else {
            obj[key] = v;
          }
          ws();
          if (text[pos++] === "}") break;
        }
      }
      spans?.set(obj, [start, pos]);
      return obj;
    }
    if (c === "[") {
      const start = pos++;
      const arr: unknown[] = [];
      ws();
      if (text[pos] === "]") pos++;
      else {
        for (;;) {
          arr.push(value());
          ws();
          if (text[pos++] === "]") break;
        }
      }
      spans?.set(arr, [start, pos]);
      return arr;
    }
    if (c === '"') return str();
    if (c === "t") {
      pos += 4;
      return true;
    }
    if (c === "f") {
      pos += 5;
      return false;
    }
    if (c === "n") {
      pos += 4;
      return null;
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text)!;
    pos = NUMBER.lastIndex;
    return numberOf(m[0], m[1] === undefined && m[2] === undefined);
  };

  return value();
}
