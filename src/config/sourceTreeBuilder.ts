import { isAlias, isMap, isScalar, isSeq, type Document, type Node } from "yaml";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceEntry, SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { MAX_NESTING } from "./textBounds.js";

/**
 * A composed YAML document to a SourceNode tree: positions and field paths for every value, keys checked
 * for uniqueness (with a set: the yaml library's own check is quadratic), aliases expanded within a budget,
 * and merge keys applied under toolgate's rule.
 *
 * The merge rule: `<<: *base` (or `<<: [*a, *b]`, or an inline map) adds the keys of the merged maps to the
 * map, as YAML's merge key does, but a key comes from one place only. A key written in the map that a merged
 * map also gives, or a key two merged maps give, is an error (E_MERGE_OVERRIDE) unless both values are
 * equal: under YAML's own rule the map's key would silently win (and the first of several merged maps), so a
 * reader of the anchored map, e.g. a shared `enforcement` block, would not see the setting actually in force.
 */

/** Values built from aliases (merges included) per document: bounds the "billion laughs" blow-up. */
export const MAX_ALIASED_VALUES = 100_000;

export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const safe = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return parent === "" ? safe : `${parent}.${safe}`;
}

function isMergeKey(node: Node | null): boolean {
  return isScalar(node) && node.type === "PLAIN" && node.source === "<<";
}

/** Deep equality of two values as loaders read them (scalars by value). Depth is bounded by the builder. */
function sameValue(a: SourceNode, b: SourceNode): boolean {
  if (a.kind === "scalar" || b.kind === "scalar") {
    return a.kind === "scalar" && b.kind === "scalar" && a.value === b.value;
  }
  if (a.kind === "seq" || b.kind === "seq") {
    return (
      a.kind === "seq" &&
      b.kind === "seq" &&
      a.items.length === b.items.length &&
      a.items.every((item, i) => sameValue(item, b.items[i]!))
    );
  }
  if (a.entries.length !== b.entries.length) return false;
  const other = new Map(b.entries.map((e) => [e.key, e.value]));
  return a.entries.every((e) => other.has(e.key) && sameValue(e.value, other.get(e.key)!));
}

export class TreeBuilder {
  private aliased = 0;
  private inAlias = 0;
  private exhausted = false;
  /** A key was given twice somewhere: the document is refused as a whole, as the parser used to. */
  duplicate = false;

  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly where: (offset: number) => { line: number; column: number },
    private readonly diagnostics: Diagnostic[],
  ) {}

  build(node: Node, path: string, depth = 0): SourceNode {
    const at = this.ref(node, path);
    const nothing: SourceNode = { kind: "scalar", value: null, raw: "", quoted: false, at };
    if (this.exhausted) return nothing;
    if (depth > MAX_NESTING) {
      this.error("E_TOO_DEEP", at, `nesting deeper than ${MAX_NESTING} levels`);
      return nothing;
    }
    if (this.inAlias > 0 && ++this.aliased > MAX_ALIASED_VALUES) {
      this.exhausted = true;
      this.error(
        "E_TOO_MANY_ALIASES",
        at,
        `YAML aliases expand to more than ${MAX_ALIASED_VALUES} values`,
        "write the values out, or merge fewer and smaller anchored maps",
      );
      return nothing;
    }
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target === undefined) return nothing;
      this.inAlias++;
      try {
        return this.build(target as Node, path, depth + 1);
      } finally {
        this.inAlias--;
      }
    }
    if (isMap(node)) return this.map(node.items, path, at, depth);
    if (isSeq(node)) {
      const items = node.items.map((item, i) =>
        item === null
          ? ({
              kind: "scalar",
              value: null,
              raw: "",
              quoted: false,
              at: this.ref(node, childPath(path, i)),
            } as const)
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
    return nothing;
  }

  private map(
    pairs: readonly { key: unknown; value: unknown }[],
    path: string,
    at: SourceRef,
    depth: number,
  ): SourceMap {
    const own: SourceEntry[] = [];
    const written = new Map<string, SourceEntry>();
    let merged: Map<string, SourceEntry> | null = null;
    let mergeAt = 0;
    for (const pair of pairs) {
      const keyNode = pair.key as Node | null;
      if (isMergeKey(keyNode)) {
        const mergeRef = this.ref(keyNode!, path);
        if (merged !== null) {
          this.duplicate = true;
          this.error(
            "E_DUPLICATE_KEY",
            mergeRef,
            "the merge key << is given twice in one map",
            "merge several maps with <<: [*a, *b]",
          );
          continue;
        }
        mergeAt = own.length;
        merged = this.merged(pair.value as Node | null, path, mergeRef, depth);
        continue;
      }
      const keyValue = isScalar(keyNode) ? keyNode.value : undefined;
      const key = keyValue === null || keyValue === undefined ? "" : String(keyValue);
      const entryPath = childPath(path, key);
      const keyAt = keyNode ? this.ref(keyNode, entryPath) : at;
      if (!isScalar(keyNode)) {
        this.error("E_FIELD_TYPE", keyAt, "map keys must be plain strings");
        continue;
      }
      if (written.has(key)) {
        this.duplicate = true;
        this.error(
          "E_DUPLICATE_KEY",
          keyAt,
          `the key '${key}' is given twice in the same map (first on line ${written.get(key)!.keyAt.line})`,
          "keep one of them",
        );
        continue;
      }
      const valueNode = pair.value as Node | null;
      const value: SourceNode =
        valueNode === null
          ? { kind: "scalar", value: null, raw: "", quoted: false, at: { ...keyAt } }
          : this.build(valueNode, entryPath, depth + 1);
      const entry = { key, keyAt, value };
      written.set(key, entry);
      own.push(entry);
    }
    if (merged === null) return { kind: "map", entries: own, at };
    const fromMerge: SourceEntry[] = [];
    for (const [key, entry] of merged) {
      const mine = written.get(key);
      if (mine === undefined) fromMerge.push(entry);
      else if (!sameValue(mine.value, entry.value)) {
        this.override(
          mine.keyAt,
          key,
          `'${key}' is written here and, with another value, in the map merged with << (line ${entry.keyAt.line}); a merged setting is never overridden`,
        );
      }
    }
    return { kind: "map", entries: [...own.slice(0, mergeAt), ...fromMerge, ...own.slice(mergeAt)], at };
  }

  /** The entries `<<` brings: of one map, or of each map of a list, none given twice with different values. */
  private merged(
    value: Node | null,
    path: string,
    mergeRef: SourceRef,
    depth: number,
  ): Map<string, SourceEntry> {
    const out = new Map<string, SourceEntry>();
    const sources = isSeq(value) ? (value.items as (Node | null)[]) : [value];
    for (const source of sources) {
      const built = source === null ? null : this.build(source, path, depth + 1);
      if (built === null || built.kind !== "map") {
        if (!this.exhausted) {
          this.error(
            "E_MERGE_KEY",
            built?.at ?? mergeRef,
            "the merge key << takes a map, an alias of one (*base) or a list of them",
            "anchor the shared map (&base) and merge it with <<: *base",
          );
        }
        continue;
      }
      for (const entry of built.entries) {
        const earlier = out.get(entry.key);
        if (earlier === undefined) out.set(entry.key, entry);
        else if (!sameValue(earlier.value, entry.value)) {
          this.override(
            { ...mergeRef, path: childPath(path, entry.key) },
            entry.key,
            `'${entry.key}' comes from two maps merged with << with different values (lines ${earlier.keyAt.line} and ${entry.keyAt.line}); a merged setting is never overridden`,
          );
        }
      }
    }
    return out;
  }

  private override(here: SourceRef, key: string, message: string): void {
    this.error(
      "E_MERGE_OVERRIDE",
      here,
      message,
      `give '${key}' in one place: remove it here or from the merged map, or stop merging that map`,
    );
  }

  private error(code: Diagnostic["code"], at: SourceRef, message: string, hint?: string): void {
    this.diagnostics.push({
      severity: "error",
      code,
      message,
      ...at,
      ...(hint === undefined ? {} : { hint }),
    });
  }

  private ref(node: Node, path: string): SourceRef {
    const offset = node.range?.[0] ?? 0;
    const { line, column } = this.where(offset);
    return { file: this.file, path, line, column };
  }
}
