import type { CaseResult } from "../../session/policyCase.js";
import { ruleText } from "../../session/policyCase.js";
import { ruleJson } from "./decisionJson.js";

/**
 * What `toolgate policy test` prints: a line per failing case (text), a JUnit XML report a CI server reads,
 * or one JSON document. Pure: each takes the results of every test file run.
 */

export interface FileResults {
  file: string;
  policy: string | null;
  results: CaseResult[];
}

export interface Totals {
  passed: number;
  failed: number;
  errors: number;
}

export function totalsOf(files: readonly FileResults[]): Totals {
  const t: Totals = { passed: 0, failed: 0, errors: 0 };
  for (const f of files) {
    for (const r of f.results) {
      if (r.kind === "unusable") t.errors++;
      else if (r.passed) t.passed++;
      else t.failed++;
    }
  }
  return t;
}

/** `decision deny, code E_…, rule tools.deny write_*`: what actually came out. */
function actualText(r: Extract<CaseResult, { kind: "decided" }>): string {
  if (r.case.request.kind === "list") return `visible [${(r.actual.visible ?? []).join(", ")}]`;
  return `decision ${r.actual.decision}, code ${r.actual.code ?? "(none)"}, rule ${ruleText(r.actual.rule)}`;
}

function expectedText(r: CaseResult): string {
  const e = r.case.expect;
  const parts: string[] = [];
  if (e.decision !== undefined) parts.push(`decision ${e.decision}`);
  if (e.code !== undefined) parts.push(`code ${e.code}`);
  if (e.rule !== undefined) parts.push(`rule ${e.rule}`);
  if (e.visible !== undefined) parts.push(`visible [${e.visible.join(", ")}]`);
  if (e.obligations !== undefined) parts.push(`obligations [${e.obligations.join(", ")}]`);
  return parts.join(", ");
}

/** One line per failing or unusable case, then the totals. */
export function renderText(files: readonly FileResults[]): string {
  return [...failureLines(files), totalsLine(files)].join("\n") + "\n";
}

/** `file:line: FAIL 'name': expected …; got …` per failing case; `E_POLICY_TEST_CONTEXT` per unusable one. */
export function failureLines(files: readonly FileResults[]): string[] {
  const lines: string[] = [];
  for (const f of files) {
    for (const r of f.results) {
      const where = `${r.case.at.file}:${r.case.at.line}`;
      if (r.kind === "unusable") {
        const hint = r.hint === undefined ? "" : ` (hint: ${r.hint})`;
        lines.push(`${where}: E_POLICY_TEST_CONTEXT case '${r.case.name}': ${r.message}${hint}`);
      } else if (!r.passed) {
        lines.push(
          `${where}: FAIL '${r.case.name}': expected ${expectedText(r)}; got ${actualText(r)} (${r.mismatches.join("; ")})`,
        );
      }
    }
  }
  return lines;
}

/** `4 cases: 3 passed, 1 failed[, 1 could not be run]`. */
export function totalsLine(files: readonly FileResults[]): string {
  const t = totalsOf(files);
  const total = t.passed + t.failed + t.errors;
  const errors = t.errors === 0 ? "" : `, ${t.errors} could not be run`;
  return `${total} case${total === 1 ? "" : "s"}: ${t.passed} passed, ${t.failed} failed${errors}`;
}

export function renderJson(files: readonly FileResults[]): string {
  return (
    JSON.stringify({
      ...totalsOf(files),
      files: files.map((f) => ({
        file: f.file,
        policy: f.policy,
        cases: f.results.map((r) => caseJson(r)),
      })),
    }) + "\n"
  );
}

function caseJson(r: CaseResult): Record<string, unknown> {
  const base = { name: r.case.name, file: r.case.at.file, line: r.case.at.line, expect: r.case.expect };
  if (r.kind === "unusable") {
    return {
      ...base,
      status: "error",
      code: "E_POLICY_TEST_CONTEXT",
      message: r.message,
      hint: r.hint ?? null,
    };
  }
  const a = r.actual;
  return {
    ...base,
    status: r.passed ? "pass" : "fail",
    actual: {
      ...(a.decision === undefined ? {} : { decision: a.decision, code: a.code }),
      rule: a.rule === null ? null : ruleJson(a.rule),
      reason: a.reason,
      ...(a.visible === undefined ? {} : { visible: a.visible }),
      ...(a.obligations === undefined ? {} : { obligations: a.obligations }),
    },
    mismatches: r.mismatches,
  };
}

/** JUnit XML (the Ant/Surefire form CI servers read): a testsuite per file, a testcase per case. */
export function renderJunit(files: readonly FileResults[]): string {
  const t = totalsOf(files);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="toolgate policy test" tests="${t.passed + t.failed + t.errors}" failures="${t.failed}" errors="${t.errors}">`,
  );
  for (const f of files) {
    const s = totalsOf([f]);
    out.push(
      `  <testsuite name="${attr(f.file)}" tests="${f.results.length}" failures="${s.failed}" errors="${s.errors}" skipped="0">`,
    );
    for (const r of f.results) {
      const head = `    <testcase name="${attr(r.case.name)}" classname="${attr(f.file)}" file="${attr(r.case.at.file)}" line="${r.case.at.line}"`;
      if (r.kind === "unusable") {
        out.push(`${head}>`);
        out.push(
          `      <error type="E_POLICY_TEST_CONTEXT" message="${attr(r.message)}">${text(r.hint ?? "")}</error>`,
        );
        out.push("    </testcase>");
      } else if (r.passed) {
        out.push(`${head}/>`);
      } else {
        const message = `expected ${expectedText(r)}; got ${actualText(r)}`;
        out.push(`${head}>`);
        out.push(
          `      <failure type="E_POLICY_TEST_FAILED" message="${attr(message)}">${text(`${r.case.at.file}:${r.case.at.line}: ${r.mismatches.join("\n")}\nreason: ${r.actual.reason}`)}</failure>`,
        );
        out.push("    </testcase>");
      }
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}

/** Characters XML 1.0 cannot hold at all (C0 controls but tab, newline, return; lone surrogates; U+FFFE/F). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function text(s: string): string {
  return s.replace(NOT_XML, "\uFFFD").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function attr(s: string): string {
  return text(s)
    .replace(/"/g, "&quot;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}
