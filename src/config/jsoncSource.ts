import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceEntry, SourceNode, SourceRef } from "../engine/model/source.js";
import { childPath, type SourceParseResult } from "./sourceTree.js";
import { MAX_NESTING, tooDeep, tooLarge } from "./textBounds.js";

export interface JsoncSourceOptions {
  /**
   * No size bound: for a client's own configuration file, which toolgate edits but nobody writes for it
   * (Claude Code keeps its history in ~/.claude.json, reported at 65–100 MB). Depth is bounded still.
   */
  anySize?: boolean;
}

/**
 * JSON as MCP clients accept it in their configuration files (JSONC: `//` and `/* … *\/` comments, trailing
 * commas; Claude Desktop, Cursor and VS Code files often have both), read into the same {@link SourceNode}
 * tree as YAML, so every value keeps its file, line, column and field path. Errors are said in JSON's
 * words at the exact line and column ("expected ',' or '}' after a member"). A key given twice is an
 * error, never last-one-wins. Nesting is bounded (E_TOO_DEEP), and so is size (E_FILE_TOO_LARGE) unless
 * `anySize`.
 */
export function parseJsoncSource(
  file: string,
  text: string,
  options: JsoncSourceOptions = {},
): SourceParseResult {
  const body = text.replace(/^\uFEFF/, "");
  const offsetOf = lineStarts(body);
  const where = (offset: number) => position(offsetOf, offset);
  const large = options.anySize === true ? null : tooLarge(file, body);
  if (large !== null) return { root: null, diagnostics: [large] };
  const deep = tooDeepAt(body);
  if (deep !== null) return { root: null, diagnostics: [tooDeep(file, where(deep))] };
  const errors: ParseError[] = [];
  const tree = parseTree(body, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  const diagnostics: Diagnostic[] = errors.slice(0, 1).map((e) => {
    const name = printParseErrorCode(e.error);
    // A missing comma is found at the next member; it belongs right after the one before.
    const at = name === "CommaExpected" ? afterPrevious(body, e.offset) : e.offset;
    return {
      severity: "error",
      code: "E_SYNTAX",
      message: `${WORDS[name] ?? name} (not valid JSON)`,
      file,
      ...where(at),
      path: "",
    };
  });
  if (diagnostics.length > 0 || tree === undefined) return { root: null, diagnostics };
  const ref = (node: Node, path: string): SourceRef => ({ file, path, ...where(node.offset) });
  const build = (node: Node, path: string, depth: number): SourceNode => {
    const at = ref(node, path);
    if (depth > 256) {
      diagnostics.push({
        severity: "error",
        code: "E_TOO_DEEP",
        message: "nesting deeper than 256 levels",
        ...at,
      });
      return { kind: "scalar", value: null, raw: "", quoted: false, at };
    }
    if (node.type === "object") {
      const entries: SourceEntry[] = [];
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode === undefined) continue;
        const key = String(keyNode.value);
        const entryPath = childPath(path, key);
        const keyAt = ref(keyNode, entryPath);
        if (seen.has(key)) {
          diagnostics.push({
            severity: "error",
            code: "E_DUPLICATE_KEY",
            message: `the key "${key}" is given twice in the same object`,
            ...keyAt,
          });
          continue;
        }
        seen.add(key);
        const value: SourceNode =
          valueNode === undefined
            ? { kind: "scalar", value: null, raw: "", quoted: false, at: keyAt }
            : build(valueNode, entryPath, depth + 1);
        entries.push({ key, keyAt, value });
      }
      return { kind: "map", entries, at };
    }
    if (node.type === "array") {
      return {
        kind: "seq",
        items: (node.children ?? []).map((item, i) => build(item, childPath(path, i), depth + 1)),
        at,
      };
    }
    const raw = body.slice(node.offset, node.offset + node.length);
    const value = node.value as string | number | boolean | null;
    return { kind: "scalar", value, raw, quoted: node.type === "string", at };
  };
  const root = build(tree, "", 0);
  return { root: diagnostics.some((d) => d.severity === "error") ? null : root, diagnostics };
}

/** jsonc-parser's SyntaxKind values (a const enum, which this build cannot import). */
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

/**
 * The offset of the first `[` or `{` nested deeper than MAX_NESTING, or null. parseTree recurses once per
 * level and runs out of stack near 10,000; its scanner (strings and comments understood) is a loop.
 */
function tooDeepAt(text: string): number | null {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      if (++depth > MAX_NESTING) return scanner.getTokenOffset();
    } else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) {
      depth = Math.max(0, depth - 1);
    }
  }
  return null;
}

/** jsonc-parser's error names, said as a person would. */
const WORDS: Record<string, string> = {
  InvalidSymbol: "unexpected character (names and strings need double quotes)",
  InvalidNumberFormat: "malformed number",
  PropertyNameExpected: 'expected a property name in double quotes ("name")',
  ValueExpected: "expected a value",
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' after this member, before the next one",
  CloseBraceExpected: "expected '}' (or ',' before another member)",
  CloseBracketExpected: "expected ']' (or ',' before another item)",
  EndOfFileExpected: "expected nothing more after the top-level value",
  InvalidCommentToken: "malformed comment",
  UnexpectedEndOfComment: "a /* comment is not closed",
  UnexpectedEndOfString: "a string is not closed (a missing '\"'?)",
  UnexpectedEndOfNumber: "a number is cut short",
  InvalidUnicode: "malformed \\u escape in a string",
  InvalidEscapeCharacter: "unknown escape in a string (a single backslash in a Windows path? write \\\\)",
  InvalidCharacter: "a control character inside a string",
};

/** The offset just after the last token before `offset` (whitespace skipped back). */
function afterPrevious(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && /\s/.test(text[i - 1]!)) i--;
  return i;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** 1-based line and column of `offset`, as the YAML reader gives them. */
function position(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}
