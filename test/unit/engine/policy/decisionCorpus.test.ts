import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { formatDiagnostic } from "../../../../src/engine/model/diagnostics.js";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { migratePolicy } from "../../../../src/config/policyMigrate.js";
import { compilePolicy, type CompiledPolicy } from "../../../../src/engine/policy/compile.js";
import { decideCall } from "../../../../src/engine/policy/decide.js";
import type { Decision } from "../../../../src/engine/model/decision.js";

/**
 * The decision corpus: test/corpus/decisions/*.yaml, each document a policy (inline or a file of the
 * policy corpus) and the calls to decide with it. Every case also runs against the migrated policy,
 * which must decide exactly the same.
 */
interface Case {
  tool: string;
  args?: string;
  prior_calls?: number;
  prior_requests?: number;
  decision: "allow" | "deny";
  code?: string;
  warnings?: string[];
  violations?: string[];
  rule?: string;
  obligations?: string[];
  about?: string;
  /** Call context: the approval artifact (JSON text), the time, whether the client can be asked. */
  approval?: string;
  /** The artifact goes as written: not signed with the test key (every other one is). */
  unsigned?: boolean;
  now?: string;
  can_elicit?: boolean;
  input_schema?: string;
  /** Expected `status` of the approval_required obligation, and a fragment of the reason. */
  approval_status?: "satisfied" | "pending";
  reason?: string;
}

interface Suite {
  about: string;
  policy?: string;
  policy_file?: string;
  cases: Case[];
}

import { signed, TEST_KEYS } from "../../../support/approvalKeys.js";

const dir = join(dirname(fileURLToPath(import.meta.url)), "../../../corpus/decisions");

function load(file: string, text: string): CompiledPolicy {
  const { policy, diagnostics } = loadPolicyText(file, text);
  if (policy === null) throw new Error(diagnostics.map(formatDiagnostic).join("\n"));
  return compilePolicy(policy);
}

function decide(compiled: CompiledPolicy, c: Case): Decision {
  return decideCall(
    compiled,
    c.tool,
    { kind: "json", text: c.args ?? "{}" },
    { toolCalls: c.prior_calls ?? 0, requests: c.prior_requests ?? 0 },
    {
      ...(c.approval !== undefined ? { approval: artifactOf(c) } : {}),
      approvalKeys: TEST_KEYS,
      ...(c.now !== undefined ? { now: new Date(c.now) } : {}),
      ...(c.can_elicit !== undefined ? { canElicit: c.can_elicit } : {}),
      ...(c.input_schema !== undefined ? { inputSchema: JSON.parse(c.input_schema) as unknown } : {}),
    },
  );
}

/** The case's artifact, signed with the test key unless the case is about an unsigned one. */
function artifactOf(c: Case): unknown {
  const value = JSON.parse(c.approval!) as Record<string, unknown>;
  return c.unsigned === true ? value : signed(value);
}

function check(d: Decision, c: Case): void {
  expect(d.decision, d.reason).toBe(c.decision);
  expect(d.code).toBe(c.decision === "allow" ? null : (c.code ?? null));
  if (c.warnings !== undefined) expect(d.warnings).toEqual(c.warnings);
  if (c.violations !== undefined) expect(d.violations.map((v) => v.path)).toEqual(c.violations);
  if (c.rule !== undefined) expect(d.rule && `${d.rule.kind} ${d.rule.value}`).toBe(c.rule);
  if (c.obligations !== undefined) expect(d.obligations.map((o) => o.kind)).toEqual(c.obligations);
  if (c.approval_status !== undefined) {
    const o = d.obligations.find((x) => x.kind === "approval_required");
    expect(o && o.kind === "approval_required" && o.status).toBe(c.approval_status);
  }
  if (c.reason !== undefined) expect(d.reason).toContain(c.reason);
  expect(d.tool).toBe(c.tool);
  expect(d.reason.length).toBeGreaterThan(0);
}

for (const name of readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()) {
  const path = join(dir, name);
  const suites = parseAllDocuments(readFileSync(path, "utf8")).map((doc) => doc.toJS() as Suite);
  describe(`decision corpus: ${name}`, () => {
    suites.forEach((suite, i) => {
      const policyPath = suite.policy_file === undefined ? `${path}#${i}` : resolve(dir, suite.policy_file);
      const text = suite.policy ?? readFileSync(policyPath, "utf8");
      const original = load(policyPath, text);
      const migrated = load(`${policyPath} (migrated)`, migratePolicy(original.policy, text));
      describe(suite.about, () => {
        for (const c of suite.cases) {
          const title = `${c.tool || '""'} ${c.args ?? ""} → ${c.decision}${c.code ? ` ${c.code}` : ""}${c.about ? ` (${c.about})` : ""}`;
          it(title, () => {
            const d = decide(original, c);
            check(d, c);
            const m = decide(migrated, c);
            expect({ ...m, rule: null }).toEqual({ ...d, rule: null, obligations: m.obligations });
            expect(m.obligations.map((o) => o.kind)).toEqual(d.obligations.map((o) => o.kind));
            expect(m.rule && [m.rule.kind, m.rule.value]).toEqual(d.rule && [d.rule.kind, d.rule.value]);
          });
        }
      });
    });
  });
}
