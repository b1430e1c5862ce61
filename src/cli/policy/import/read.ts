import { parseJsoncSource } from "../../../config/jsoncSource.js";
import { describeKind, entryOf } from "../../../config/sourceTree.js";
import { parseStrictJson } from "../../../engine/json/strictJson.js";
import type { SourceMap, SourceNode } from "../../../engine/model/source.js";
import { ImportInputError, type Spot } from "./model.js";

/**
 * Reading the JSON files of the clients into position-keeping trees ({@link SourceNode}), so every report
 * item and every shape error can name the line and column. Parse errors become {@link ImportInputError}s.
 */

export interface StringItem extends Spot {
  value: string;
}

/** JSONC as VS Code and Gemini CLI accept it (comments, trailing commas), through the repo's reader. */
export function readJsonc(file: string, text: string): SourceNode {
  const parsed = parseJsoncSource(file, text);
  const first = parsed.diagnostics.find((d) => d.severity === "error");
  if (first !== undefined) throw new ImportInputError(first.message, spotOf(first));
  if (parsed.root === null) throw new ImportInputError("the file is empty", { line: 1, column: 1 });
  return parsed.root;
}

/**
 * Strict JSON, as Claude Code reads its settings (a comment or a trailing comma makes it reject the whole
 * file, so accepting one here would import rules Claude never applies). The strict scanner finds the
 * problem; the JSONC reader, which then finds none, builds the tree with positions.
 */
export function readStrictJson(file: string, text: string): SourceNode {
  const body = text.replace(/^\uFEFF/, "");
  const strict = parseStrictJson(body);
  if (!strict.ok) {
    // The scanner counts offsets; a person wants the line and column, so those replace the offset.
    const detail = strict.message.replace(/ at offset \d+/, "").replace(/ \(offset \d+\)/, "");
    throw new ImportInputError(
      detail,
      positionOf(body, strict.offset),
      "Claude Code settings are strict JSON: no comments, no trailing commas",
    );
  }
  return readJsonc(file, body);
}

/** 1-based line and column of a character offset. */
export function positionOf(text: string, offset: number): Spot {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

export function spotOf(
  node: { line: number; column: number } | { at: { line: number; column: number } },
): Spot {
  const at = "at" in node ? node.at : node;
  return { line: at.line, column: at.column };
}

/** The node as a map, or bad input naming what it should have been. */
export function asMap(node: SourceNode, what: string): SourceMap {
  if (node.kind === "map") return node;
  throw new ImportInputError(`${what} must be an object, but this is ${describeKind(node)}`, spotOf(node));
}

/** The value of `key` in `map` as a map, `undefined` when absent. */
export function mapEntry(map: SourceMap, key: string, what: string): SourceMap | undefined {
  const entry = entryOf(map, key);
  return entry === undefined ? undefined : asMap(entry.value, what);
}

/** A list of strings with their positions; anything else is bad input (the client would reject it too). */
export function stringList(node: SourceNode, what: string): StringItem[] {
  if (node.kind !== "seq") {
    throw new ImportInputError(
      `${what} must be a list of strings, but this is ${describeKind(node)}`,
      spotOf(node),
    );
  }
  return node.items.map((item) => {
    if (item.kind !== "scalar" || typeof item.value !== "string") {
      throw new ImportInputError(
        `${what} must hold strings, but this is ${describeKind(item)}`,
        spotOf(item),
      );
    }
    return { value: item.value, ...spotOf(item) };
  });
}

/** The string list under `key`, `undefined` when absent. */
export function listEntry(map: SourceMap, key: string, what: string): StringItem[] | undefined {
  const entry = entryOf(map, key);
  return entry === undefined ? undefined : stringList(entry.value, what);
}
