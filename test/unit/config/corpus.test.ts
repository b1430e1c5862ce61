import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import type { PatternEntry, Policy } from "../../../src/engine/model/policy.js";
import type { SourceRef } from "../../../src/engine/model/source.js";
import { lintPolicy } from "../../../src/config/policyLint.js";
import { CORPUS_DIR, corpusCases } from "./corpusFiles.js";

const cases = corpusCases();

/** The normalized fields a corpus expectation may name, without source positions. */
function normalizedView(p: Policy): Record<string, unknown> {
  const patterns = (l: PatternEntry[]) => l.map((e) => e.pattern);
  const withoutAt = <T extends { at: SourceRef }>(x: T | undefined) => {
    if (x === undefined) return undefined;
    const { at: _at, ...rest } = x;
    return rest;
  };
  return {
    sourceVersion: p.sourceVersion,
    name: p.name,
    description: p.description,
    allow: p.tools.allow === null ? null : patterns(p.tools.allow),
    deny: patterns(p.tools.deny),
    approvalRequired: patterns(p.tools.approvalRequired),
    restrictScope: patterns(p.tools.restrictScope),
    redactArgs: patterns(p.tools.redactArgs),
    restrictScopeContract: withoutAt(p.tools.restrictScopeContract),
    redactArgsContract: withoutAt(p.tools.redactArgsContract),
    schemaTools: Object.keys(p.schemas).sort(),
    schemas: Object.fromEntries(Object.entries(p.schemas).map(([k, v]) => [k, v.schema])),
    fromV1: Object.keys(p.schemas)
      .filter((k) => p.schemas[k]!.fromV1Constraints)
      .sort(),
    sharedDefs: p.sharedDefs,
    enforcement: p.enforcement,
    limits: p.limits,
    toolPins: p.toolPins.map((pin) => withoutAt(pin)),
    legacy: p.legacy ?? null,
  };
}

/** Every SourceRef in the policy, by field path. */
function refsByPath(value: unknown, out = new Map<string, SourceRef>(), depth = 0): Map<string, SourceRef> {
  if (value === null || typeof value !== "object" || depth > 12) return out;
  const v = value as Record<string, unknown>;
  if (
    typeof v.file === "string" &&
    typeof v.path === "string" &&
    typeof v.line === "number" &&
    typeof v.column === "number"
  ) {
    if (!out.has(v.path)) out.set(v.path, v as unknown as SourceRef);
    return out;
  }
  for (const key of Object.keys(v))
    if (key !== "source" && key !== "sharedDefsSource") refsByPath(v[key], out, depth + 1);
  return out;
}

describe("policy corpus", () => {
  it("pairs every policy with an expectation file", () => {
    const files = readdirSync(CORPUS_DIR);
    const policies = files.filter((f) => f.endsWith(".yaml")).map((f) => f.replace(/\.yaml$/, ""));
    const expects = files
      .filter((f) => f.endsWith(".expect.json"))
      .map((f) => f.replace(/\.expect\.json$/, ""));
    expect(expects.sort()).toEqual(policies.sort());
    expect(policies.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const result = loadPolicyText(c.file, c.text);

    it(c.expect.about, () => {
      expect(result.policy !== null).toBe(c.expect.loads);
      const got = result.diagnostics.map((d) => [d.severity, d.code, `${d.line}:${d.column}`, d.path]);
      expect(got).toEqual(c.expect.diagnostics);
      for (const d of result.diagnostics) {
        expect(d.file).toBe(c.file);
        expect(d.line).toBeGreaterThan(0);
        expect(d.column).toBeGreaterThan(0);
        expect(d.message.length).toBeGreaterThan(10);
      }
    });

    if (c.expect.messages || c.expect.hints) {
      it("words the diagnostics as expected", () => {
        for (const [path, message] of Object.entries(c.expect.messages ?? {})) {
          expect(result.diagnostics.find((d) => d.path === path)?.message, path).toBe(message);
        }
        for (const [path, hint] of Object.entries(c.expect.hints ?? {})) {
          expect(result.diagnostics.find((d) => d.path === path)?.hint, path).toBe(hint);
        }
      });
    }

    if (c.expect.loads) {
      it("normalizes and lints as expected", () => {
        const policy = result.policy!;
        expect(policy.file).toBe(c.file);
        expect(policy.digest).toMatch(/^[0-9a-f]{64}$/);
        const view = normalizedView(policy);
        for (const [key, value] of Object.entries(c.expect.normalized ?? {})) {
          expect(view[key], key).toEqual(value);
        }
        const refs = refsByPath(policy);
        for (const [path, pos] of Object.entries(c.expect.positions ?? {})) {
          const ref = refs.get(path);
          expect(ref, path).toBeDefined();
          expect(`${ref!.line}:${ref!.column}`, path).toBe(pos);
          expect(ref!.file).toBe(c.file);
        }
        const lint = lintPolicy(policy).map((d) => [d.code, `${d.line}:${d.column}`, d.path]);
        expect(lint).toEqual(c.expect.lint ?? []);
      });
    }
  });
});
