import { numberOf } from "../engine/json/jsonNumber.js";
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceRef, SourceNode, SourceMap, SourceEntry, SourceScalar } from "../engine/model/source.js";

/**
 * A parsed YAML or JSON document in which every value remembers its file, line, column and field path,
 * so loaders can report `file:line:col field: message` for anything they reject or doubt.
 */

export interface SourceParseResult {
  /** `null` when the document is empty or could not be parsed. */
  root: SourceNode | null;
  diagnostics: Diagnostic[];
}

export interface SourceParseOptions {
  /** Added to every line number: the line a YAML block starts on inside a larger file (front matter). */
  lineOffset?: number;
}

/** Parses YAML (and therefore JSON) text into a {@link SourceNode} tree. Duplicate keys are errors. */
export function parseYamlSource(
  file: string,
  text: string,
  options: SourceParseOptions = {},
): SourceParseResult {
  const lineOffset = options.lineOffset ?? 0;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const diagnostics: Diagnostic[] = [];
  const where = (offset: number): { line: number; column: number } => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line + lineOffset, column: pos.col };
  };
  for (const e of doc.errors) {
    const { line, column } = where(e.pos[0]);
    diagnostics.push({
      severity: "error",
      code: e.code === "DUPLICATE_KEY" ? "E_DUPLICATE_KEY" : "E_SYNTAX",
      message: firstLine(e.message),
      file,
      line,
      column,
      path: "",
    });
  }
  if (diagnostics.length > 0) return { root: null, diagnostics };
  const builder = new TreeBuilder(file, doc, where, diagnostics);
  const root = doc.contents === null ? null : builder.build(doc.contents as Node, "");
  return { root, diagnostics };
}

/** Splits Markdown with a `---` YAML front-matter block; the YAML keeps its line numbers in the file. */
export function parseFrontMatter(file: string, text: string): SourceParseResult & { body: string } {
  // A byte-order mark and blank lines before the opening `---` are what editors leave; the header counts.
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  let open = 0;
  while (open < lines.length && lines[open]!.trim() === "") open++;
  if (open === lines.length || !/^---[ \t]*\r?$/.test(lines[open]!)) {
    return { root: null, diagnostics: [], body: text };
  }
  // Closed by `---`, or by `...` (YAML's end of document).
  let close = open + 1;
  while (close < lines.length && !/^(?:---|\.\.\.)[ \t]*\r?$/.test(lines[close]!)) close++;
  if (close === lines.length) {
    // Never closed: applying part of it, or none, would be a silent guess about what the author meant.
    return {
      root: null,
      diagnostics: [
        {
          severity: "error",
          code: "E_FRONT_MATTER",
          message: `the front matter opened with '---' on line ${open + 1} is never closed`,
          file,
          line: open + 1,
          column: 1,
          path: "",
          hint: "end the YAML header with a line of '---' (or '...')",
        },
      ],
      body: text,
    };
  }
  const yamlText = lines
    .slice(open + 1, close)
    .map((line) => line.replace(/\r$/, ""))
    .join("\n");
  const parsed = parseYamlSource(file, yamlText, { lineOffset: open + 1 });
  return { ...parsed, body: lines.slice(close + 1).join("\n") };
}

/** The plain JavaScript value of a node (for JSON Schemas and other free-form values). */
export function toPlain(node: SourceNode): unknown {
  switch (node.kind) {
    case "scalar":
      return node.value;
    case "seq":
      return node.items.map(toPlain);
    case "map": {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) {
        // defineProperty keeps a `__proto__` key an ordinary key instead of changing the prototype.
        Object.defineProperty(out, e.key, {
          value: toPlain(e.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

/**
 * As toPlain, but a number keeps its literal where a double would change it (a JsonNumber: `9007199254740993`,
 * `1e400`, `0.10000000000000000001`), as JSON Schema keywords in a policy must compare it: "a constraint
 * written in this policy is validated from the schema you wrote here". YAML's own integer forms (`0x1F`,
 * `0o17`, `+5`) are read as the integer they stand for.
 */
export function toPlainExact(node: SourceNode): unknown {
  switch (node.kind) {
    case "scalar":
      return typeof node.value === "number" && !node.quoted ? exactNumber(node.raw, node.value) : node.value;
    case "seq":
      return node.items.map(toPlainExact);
    case "map": {
      const out: Record<string, unknown> = {};
      for (const e of node.entries) {
        Object.defineProperty(out, e.key, {
          value: toPlainExact(e.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function exactNumber(raw: string, value: number): unknown {
  const text = raw.trim();
  if (JSON_NUMBER.test(text)) return numberOf(text);
  const unsigned = text.replace(/^\+/, "");
  if (/^0x[0-9a-fA-F]+$|^0o[0-7]+$/.test(unsigned)) {
    const n = unsigned.startsWith("0o") ? BigInt(`0o${unsigned.slice(2)}`) : BigInt(unsigned);
    return numberOf(n.toString());
  }
  if (JSON_NUMBER.test(unsigned)) return numberOf(unsigned);
  return value;
}

export function entryOf(map: SourceMap, key: string): SourceEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

/** Warns about every key of `map` not in `known`, naming the line and listing what is accepted. */
export function unknownKeyWarnings(map: SourceMap, known: readonly string[], what: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const e of map.entries) {
    if (known.includes(e.key)) continue;
    const close = closest(e.key, known);
    out.push({
      severity: "warning",
      code: "W_UNKNOWN_FIELD",
      message: `unknown field '${e.key}' in ${what} is ignored`,
      file: e.keyAt.file,
      line: e.keyAt.line,
      column: e.keyAt.column,
      path: e.keyAt.path,
      hint: close === undefined ? `known fields: ${known.join(", ")}` : `did you mean '${close}'?`,
    });
  }
  return out;
}

export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const safe = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return parent === "" ? safe : `${parent}.${safe}`;
}

export function describeKind(node: SourceNode): string {
  if (node.kind === "map") return "a map";
  if (node.kind === "seq") return "a list";
  if (node.value === null) return "null";
  return `a ${typeof node.value} (${node.raw})`;
}

/** Aliases expanded per document; bounds the "billion laughs" blow-up of nested aliases. */
const MAX_ALIAS_EXPANSIONS = 100;

class TreeBuilder {
  private aliasExpansions = 0;

  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly where: (offset: number) => { line: number; column: number },
    private readonly diagnostics: Diagnostic[],
  ) {}

  build(node: Node, path: string, depth = 0): SourceNode {
    const at = this.ref(node, path);
    if (depth > 256) {
      this.diagnostics.push({
        severity: "error",
        code: "E_TOO_DEEP",
        message: "nesting deeper than 256 levels",
        ...at,
      });
      return { kind: "scalar", value: null, raw: "", quoted: false, at };
    }
    if (isAlias(node)) {
      if (++this.aliasExpansions > MAX_ALIAS_EXPANSIONS) {
        this.diagnostics.push({
          severity: "error",
          code: "E_TOO_MANY_ALIASES",
          message: `more than ${MAX_ALIAS_EXPANSIONS} YAML aliases expanded`,
          ...at,
        });
        return { kind: "scalar", value: null, raw: "", quoted: false, at };
      }
      const target = node.resolve(this.doc);
      if (target === undefined) return { kind: "scalar", value: null, raw: "", quoted: false, at };
      return this.build(target as Node, path, depth + 1);
    }
    if (isMap(node)) {
      const entries: SourceEntry[] = [];
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyValue = isScalar(keyNode) ? keyNode.value : undefined;
        const key = keyValue === null || keyValue === undefined ? "" : String(keyValue);
        const entryPath = childPath(path, key);
        const keyAt = keyNode ? this.ref(keyNode, entryPath) : at;
        if (!isScalar(keyNode)) {
          this.diagnostics.push({
            severity: "error",
            code: "E_FIELD_TYPE",
            message: "map keys must be plain strings",
            ...keyAt,
          });
          continue;
        }
        const valueNode = pair.value as Node | null;
        const value: SourceNode =
          valueNode === null
            ? { kind: "scalar", value: null, raw: "", quoted: false, at: { ...keyAt } }
            : this.build(valueNode, entryPath, depth + 1);
        entries.push({ key, keyAt, value });
      }
      return { kind: "map", entries, at };
    }
    if (isSeq(node)) {
      const items = node.items.map((item, i) =>
        item === null
          ? ({
              kind: "scalar",
              value: null,
              raw: "",
              quoted: false,
              at: this.ref(node, childPath(path, i)),
            } as SourceScalar)
          : this.build(item as Node, childPath(path, i), depth + 1),
      );
      return { kind: "seq", items, at };
    }
    if (isScalar(node)) {
      const v = node.value;
      const value =
        v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean"
          ? v
          : typeof v === "bigint"
            ? Number(v)
            : String(v);
      const raw = node.source ?? (node.range ? "" : String(v));
      const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE";
      return { kind: "scalar", value, raw: raw === "" ? String(v ?? "") : raw, quoted, at };
    }
    return { kind: "scalar", value: null, raw: "", quoted: false, at };
  }

  private ref(node: Node, path: string): SourceRef {
    const offset = node.range?.[0] ?? 0;
    const { line, column } = this.where(offset);
    return { file: this.file, path, line, column };
  }
}

function firstLine(s: string): string {
  const line = s.split("\n")[0] ?? s;
  return line.replace(/ at line \d+, column \d+:?$/, "");
}

/** The known name closest to `word` by edit distance, when it is plausibly a typo of it. */
function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
