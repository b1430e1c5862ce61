import { numberOf } from "../engine/json/jsonNumber.js";
import { LineCounter, type Node } from "yaml";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceNode, SourceMap, SourceEntry } from "../engine/model/source.js";
import { closestName } from "../engine/text/didYouMean.js";
import { TreeBuilder } from "./sourceTreeBuilder.js";
import { tooDeep, tooLarge } from "./textBounds.js";
import { composeYaml } from "./yamlCompose.js";

export { childPath } from "./sourceTreeBuilder.js";

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

/**
 * Parses YAML (and therefore JSON) text into a {@link SourceNode} tree. Duplicate keys are errors; nesting
 * deeper than 256 levels is refused before the parser recurses (yamlCompose.ts); merge keys (`<<`) are
 * applied, and a merged setting is never overridden (sourceTreeBuilder.ts).
 */
export function parseYamlSource(
  file: string,
  text: string,
  options: SourceParseOptions = {},
): SourceParseResult {
  const lineOffset = options.lineOffset ?? 0;
  const lineCounter = new LineCounter();
  const where = (offset: number): { line: number; column: number } => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line + lineOffset, column: pos.col };
  };
  const large = tooLarge(file, text);
  if (large !== null) return { root: null, diagnostics: [large] };
  const composed = composeYaml(text, lineCounter);
  if (!composed.ok) return { root: null, diagnostics: [tooDeep(file, where(composed.tooDeepAt))] };
  const doc = composed.doc;
  const diagnostics: Diagnostic[] = [];
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
  return { root: builder.duplicate ? null : root, diagnostics };
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
    const close = closestName(e.key, known);
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

export function describeKind(node: SourceNode): string {
  if (node.kind === "map") return "a map";
  if (node.kind === "seq") return "a list";
  if (node.value === null) return "null";
  return `a ${typeof node.value} (${node.raw})`;
}

function firstLine(s: string): string {
  const line = s.split("\n")[0] ?? s;
  return line.replace(/ at line \d+, column \d+:?$/, "");
}
