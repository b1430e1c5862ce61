import type { ToolgateCode } from "../engine/model/codes.js";
import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { PatternEntry } from "../engine/model/policy.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import { childPath, describeKind, entryOf } from "./sourceTree.js";

/**
 * Typed reads from a policy's source tree. Every read that rejects a value records a diagnostic naming
 * file, line, column and field path, and returns `undefined` so the loader can keep going and report
 * every problem of the file in one pass.
 */
export class PolicyReader {
  readonly diagnostics: Diagnostic[] = [];

  error(code: ToolgateCode, at: SourceRef, message: string, hint?: string): void {
    this.push("error", code, at, message, hint);
  }

  warn(code: ToolgateCode, at: SourceRef, message: string, hint?: string): void {
    this.push("warning", code, at, message, hint);
  }

  /** A map, or `undefined` for an absent/null section; anything else is a type error. */
  map(node: SourceNode | undefined, what: string): SourceMap | undefined {
    if (node === undefined || isNull(node)) return undefined;
    if (node.kind === "map") return node;
    this.typeError(node, `a map of ${what}`);
    return undefined;
  }

  /** The value of a required field of `map`; a missing one is an error naming the field's path. */
  required(map: SourceMap, key: string): SourceNode | undefined {
    const entry = entryOf(map, key);
    if (entry !== undefined) return entry.value;
    this.error(
      "E_POLICY_MISSING_FIELD",
      { ...map.at, path: childPath(map.at.path, key) },
      `missing required field '${key}'`,
    );
    return undefined;
  }

  string(node: SourceNode, what = "a string"): string | undefined {
    if (node.kind === "scalar" && typeof node.value === "string") return node.value;
    this.typeError(
      node,
      what,
      node.kind === "scalar" && node.value !== null ? `write it in quotes: "${node.raw}"` : undefined,
    );
    return undefined;
  }

  /** A non-empty string (an empty one is an error naming the field). */
  nonEmptyString(node: SourceNode, what: string): string | undefined {
    const s = this.string(node, what);
    if (s === "") this.error("E_POLICY_FIELD_VALUE", node.at, `expected ${what}, got an empty string`);
    return s === "" ? undefined : s;
  }

  boolean(node: SourceNode): boolean | undefined {
    if (node.kind === "scalar" && typeof node.value === "boolean") return node.value;
    this.typeError(node, "true or false");
    return undefined;
  }

  /** A YAML integer ≥ 0 (not a float like `10.0`, not a quoted number). */
  nonNegativeInteger(node: SourceNode): number | undefined {
    if (
      node.kind === "scalar" &&
      typeof node.value === "number" &&
      Number.isSafeInteger(node.value) &&
      node.value >= 0 &&
      !/[.eE]/.test(node.raw)
    ) {
      return node.value;
    }
    const quotedNumber = node.kind === "scalar" && node.quoted && /^\d+$/.test(String(node.value));
    this.typeError(node, "a non-negative integer", quotedNumber ? "remove the quotes" : undefined);
    return undefined;
  }

  /** One of `accepted`, compared exactly; a near miss (case, spaces) gets a hint. */
  oneOf<T extends string>(
    node: SourceNode,
    accepted: readonly T[],
    code: ToolgateCode = "E_POLICY_FIELD_VALUE",
  ): T | undefined {
    const value = this.string(node, `one of ${quoteList(accepted)}`);
    if (value === undefined) return undefined;
    if ((accepted as readonly string[]).includes(value)) return value as T;
    const near = accepted.find((a) => a === value.trim().toLowerCase());
    this.error(
      code,
      node.at,
      `unsupported value '${value}'; accepted values: ${quoteList(accepted)}`,
      near === undefined ? undefined : `write '${near}' (values are case-sensitive)`,
    );
    return undefined;
  }

  /**
   * A list of tool-name patterns. Each non-string entry is an error with its own path; `allowNull`
   * decides whether an empty value (`allow:` with nothing after it) counts as an empty list.
   */
  patternList(node: SourceNode, options: { allowNull: boolean }): PatternEntry[] | undefined {
    if (isNull(node)) {
      if (options.allowNull) return [];
      this.error(
        "E_POLICY_FIELD_TYPE",
        node.at,
        "expected a list of tool-name patterns, got an empty value",
        "write [] to allow nothing, or remove the line to have no allowlist",
      );
      return undefined;
    }
    if (node.kind !== "seq") {
      this.typeError(
        node,
        "a list of tool-name patterns",
        node.kind === "scalar" && typeof node.value === "string"
          ? `write a list: ["${node.value}"]`
          : undefined,
      );
      return undefined;
    }
    const out: PatternEntry[] = [];
    let ok = true;
    for (const item of node.items) {
      if (item.kind === "scalar" && typeof item.value === "string") {
        out.push({ pattern: item.value, at: item.at });
      } else {
        ok = false;
        this.typeError(
          item,
          "a tool-name pattern (a string)",
          item.kind === "scalar" && item.value !== null ? `write it in quotes: "${item.raw}"` : undefined,
        );
      }
    }
    return ok ? out : undefined;
  }

  typeError(node: SourceNode, expected: string, hint?: string): void {
    this.error("E_POLICY_FIELD_TYPE", node.at, `expected ${expected}, got ${describeKind(node)}`, hint);
  }

  private push(
    severity: Diagnostic["severity"],
    code: ToolgateCode,
    at: SourceRef,
    message: string,
    hint?: string,
  ): void {
    this.diagnostics.push(diagnosticAt(severity, code, at, message, hint));
  }
}

export function isNull(node: SourceNode): boolean {
  return node.kind === "scalar" && node.value === null;
}

export function quoteList(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(", ");
}
