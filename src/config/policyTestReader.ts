import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { closestName } from "../engine/text/didYouMean.js";
import { describeKind } from "./sourceTree.js";

/**
 * Reads the fields of a policy test file strictly: an unknown field, a value of the wrong kind, a name not
 * among the accepted ones is an E_POLICY_TEST_FILE error at its line, with a hint (never a warning: a
 * skipped expectation would pass a policy nobody checked).
 */
export class TestFileReader {
  readonly diagnostics: Diagnostic[] = [];

  error(at: SourceRef, message: string, hint?: string): void {
    this.diagnostics.push({
      severity: "error",
      code: "E_POLICY_TEST_FILE",
      message,
      ...at,
      ...(hint === undefined ? {} : { hint }),
    });
  }

  map(node: SourceNode, what: string, known: readonly string[]): SourceMap | null {
    if (node.kind !== "map") {
      this.error(node.at, `${what} must be a map, but this is ${describeKind(node)}`);
      return null;
    }
    for (const e of node.entries) {
      if (known.includes(e.key)) continue;
      const close = closestName(e.key, known);
      this.error(
        e.keyAt,
        `unknown field '${e.key}' in ${what}; refused rather than ignored, so no expectation goes unchecked`,
        close === undefined ? `known fields: ${known.join(", ")}` : `did you mean '${close}'?`,
      );
    }
    return node;
  }

  string(node: SourceNode, field: string): string | undefined {
    if (node.kind === "scalar" && typeof node.value === "string" && node.value !== "") return node.value;
    this.error(node.at, `'${field}' must be a non-empty string, but this is ${describeKind(node)}`);
    return undefined;
  }

  oneOf<T extends string>(node: SourceNode, field: string, values: readonly T[]): T | undefined {
    const value = this.string(node, field);
    if (value === undefined) return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    const close = closestName(value, values);
    this.error(
      node.at,
      `'${field}' must be one of ${values.join(", ")}, not '${value}'`,
      close === undefined ? undefined : `did you mean '${close}'?`,
    );
    return undefined;
  }

  strings(node: SourceNode, field: string): string[] | undefined {
    if (node.kind !== "seq") {
      this.error(node.at, `'${field}' must be a list of names, but this is ${describeKind(node)}`);
      return undefined;
    }
    const out: string[] = [];
    for (const item of node.items) {
      const s = this.string(item, `${field}[]`);
      if (s !== undefined) out.push(s);
    }
    return out;
  }
}

/** Parses the text of a test file; `file` names it in diagnostics and anchors relative paths. */
