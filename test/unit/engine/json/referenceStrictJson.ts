// A deliberately plain strict-JSON checker for differential tests: recursive descent with regular
// expressions for tokens, written independently of src/json/scanner.ts. Slow and recursive, so only for
// small inputs. It states the reporting conventions of parseStrictJson: the first problem in reading order,
// its offset, and the JSON pointer of the value being read.

export interface ReferenceProblem {
  code: "E_JSON_SYNTAX" | "E_JSON_DUPLICATE_KEY" | "E_JSON_TOO_DEEP";
  offset: number;
  path: string;
}

const STRING_PREFIX = /"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class Problem extends Error {
  constructor(readonly problem: ReferenceProblem) {
    super(problem.code);
  }
}

const token = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

export function referenceCheck(text: string, maxDepth: number): ReferenceProblem | null {
  let pos = 0;
  const fail = (code: ReferenceProblem["code"], offset: number, path: string): never => {
    throw new Problem({ code, offset, path });
  };
  const ws = () => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.test(text);
    pos = WHITESPACE.lastIndex;
  };
  const isDigit = (ch: string | undefined) => ch !== undefined && ch >= "0" && ch <= "9";

  /** Reads a string token at `pos`; returns its value. Errors are reported against `path`. */
  const readString = (path: string): string => {
    STRING_PREFIX.lastIndex = pos;
    STRING_PREFIX.test(text);
    const end = STRING_PREFIX.lastIndex;
    if (text[end] === '"') {
      const value = JSON.parse(text.slice(pos, end + 1)) as string;
      pos = end + 1;
      return value;
    }
    if (text[end] === "\\") {
      if (text[end + 1] === "u") {
        let k = end + 2;
        while (/[0-9a-fA-F]/.test(text[k] ?? "")) k++;
        return fail("E_JSON_SYNTAX", k, path);
      }
      return fail("E_JSON_SYNTAX", end + 1, path);
    }
    return fail("E_JSON_SYNTAX", end, path); // control character or end of text
  };

  const readNumber = (path: string) => {
    NUMBER.lastIndex = pos;
    if (!NUMBER.test(text)) fail("E_JSON_SYNTAX", pos + 1, path);
    const end = NUMBER.lastIndex;
    const m = text.slice(pos, end);
    const next = text[end];
    if ((m === "0" || m === "-0") && isDigit(next)) fail("E_JSON_SYNTAX", end, path);
    if (!/[.eE]/.test(m) && next === ".") fail("E_JSON_SYNTAX", end + 1, path);
    if (!/[eE]/.test(m) && (next === "e" || next === "E")) {
      const j = text[end + 1] === "+" || text[end + 1] === "-" ? end + 2 : end + 1;
      fail("E_JSON_SYNTAX", j, path);
    }
    pos = end;
  };

  const readValue = (depth: number, path: string): void => {
    const c = text[pos];
    if (c === "{" || c === "[") {
      if (depth === maxDepth) fail("E_JSON_TOO_DEEP", pos, path);
      pos++;
      ws();
      if (c === "[") {
        if (text[pos] === "]") {
          pos++;
          return;
        }
        for (let index = 0; ; index++) {
          readValue(depth + 1, `${path}/${index}`);
          ws();
          if (text[pos] === ",") {
            pos++;
            ws();
            continue;
          }
          if (text[pos] === "]") {
            pos++;
            return;
          }
          fail("E_JSON_SYNTAX", pos, `${path}/${index}`);
        }
      }
      if (text[pos] === "}") {
        pos++;
        return;
      }
      const seen = new Set<string>();
      for (;;) {
        if (text[pos] !== '"') fail("E_JSON_SYNTAX", pos, path);
        const start = pos;
        const name = readString(path);
        const memberPath = `${path}/${token(name)}`;
        if (seen.has(name)) fail("E_JSON_DUPLICATE_KEY", start, memberPath);
        seen.add(name);
        ws();
        if (text[pos] !== ":") fail("E_JSON_SYNTAX", pos, memberPath);
        pos++;
        ws();
        readValue(depth + 1, memberPath);
        ws();
        if (text[pos] === ",") {
          pos++;
          ws();
          continue;
        }
        if (text[pos] === "}") {
          pos++;
          return;
        }
        fail("E_JSON_SYNTAX", pos, memberPath);
      }
    }
    if (c === '"') return void readString(path);
    if (c === "-" || isDigit(c)) return readNumber(path);
    for (const word of ["true", "false", "null"]) {
      if (c === word[0]) {
        if (!text.startsWith(word, pos)) fail("E_JSON_SYNTAX", pos, path);
        pos += word.length;
        return;
      }
    }
    fail("E_JSON_SYNTAX", pos, path);
  };

  try {
    ws();
    readValue(0, "");
    ws();
    if (pos !== text.length) fail("E_JSON_SYNTAX", pos, "");
    return null;
  } catch (e) {
    if (e instanceof Problem) return e.problem;
    throw e;
  }
}
