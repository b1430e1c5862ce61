import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { SourceRef } from "../engine/model/source.js";
import { describeKind, parseYamlSource } from "./sourceTree.js";
import { TestFileReader as Reader } from "./policyTestReader.js";
import { parseCase, type PolicyTestCase } from "./policyTestCase.js";

export type * from "./policyTestCase.js";

/**
 * A policy test file (`toolgate policy test`, docs/changing-policies.md): the policy or configuration
 * directory it tests (relative to the file) and its cases, each with the context, the request (a call or a
 * `tools/list`) and what must come out. Every problem is an error with file, line and field: a test that is
 * silently skipped would pass a policy nobody checked. Parsing is pure; {@link loadPolicyTestFile} reads.
 */

export interface PolicyTestFile {
  file: string;
  /** Resolved against the file's directory. */
  policy?: string;
  configDir?: string;
  cases: PolicyTestCase[];
}

const TOP = ["policy", "config_dir", "cases"];

export function parsePolicyTestFile(
  file: string,
  text: string,
): { tests: PolicyTestFile | null; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  if (parsed.root === null) {
    if (parsed.diagnostics.length > 0) return { tests: null, diagnostics: parsed.diagnostics };
    const at = { file, path: "", line: 1, column: 1 };
    const r = new Reader();
    r.error(
      at,
      "the test file is empty",
      "write `cases:` with at least one case (docs/changing-policies.md)",
    );
    return { tests: null, diagnostics: r.diagnostics };
  }
  const r = new Reader();
  const root = r.map(parsed.root, "the test file", TOP);
  const tests: PolicyTestFile = { file, cases: [] };
  const base = dirname(file);
  const relative = (p: string) => (isAbsolute(p) ? p : join(base, p));
  let casesSeen = false;
  for (const e of root?.entries ?? []) {
    if (e.key === "policy") {
      const p = r.string(e.value, "policy");
      if (p !== undefined) tests.policy = relative(p);
    } else if (e.key === "config_dir") {
      const d = r.string(e.value, "config_dir");
      if (d !== undefined) tests.configDir = relative(d);
    } else if (e.key === "cases") {
      casesSeen = true;
      if (e.value.kind !== "seq" || e.value.items.length === 0) {
        r.error(
          e.value.at,
          `'cases' must be a non-empty list of cases, but this is ${describeKind(e.value)}`,
        );
        continue;
      }
      for (const item of e.value.items) {
        const c = parseCase(r, item);
        if (c !== null) tests.cases.push(c);
      }
    }
  }
  if (root !== null && !casesSeen) {
    r.error(root.at, "the test file has no 'cases:'", "add `cases:` with at least one case");
  }
  const names = new Map<string, SourceRef>();
  for (const c of tests.cases) {
    const first = names.get(c.name);
    if (first !== undefined) {
      r.error(
        c.at,
        `two cases are named '${c.name}' (the first at line ${first.line})`,
        "give each case its own name",
      );
    } else names.set(c.name, c.at);
  }
  const diagnostics = [...parsed.diagnostics, ...r.diagnostics];
  return { tests: r.diagnostics.length === 0 ? tests : null, diagnostics };
}

/** Reads and parses `file`; an unreadable file is one E_POLICY_TEST_FILE error. */
export function loadPolicyTestFile(file: string): {
  tests: PolicyTestFile | null;
  diagnostics: Diagnostic[];
} {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const at = { file, path: "", line: 0, column: 0 };
    const message = `cannot read the test file: ${error instanceof Error ? error.message : String(error)}`;
    return { tests: null, diagnostics: [{ severity: "error", code: "E_POLICY_TEST_FILE", message, ...at }] };
  }
  return parsePolicyTestFile(file, text);
}
