import type { AuditRule } from "../audit/events.js";
import type { LogRead } from "./replayLogs.js";
import type { ChangedCalls, ReplayDiff, ToolChange } from "./tally.js";

/** What `toolgate replay` prints: the verdict diff as JSON, as text, or as a pull request's Markdown. */
export interface ReplayReport extends ReplayDiff {
  policy: { file: string; digest: string };
  logs: LogRead[];
}

export function replayJson(report: ReplayReport): string {
  return JSON.stringify(report, null, 2) + "\n";
}

function ruleText(rule: AuditRule | null | undefined): string {
  return rule === null || rule === undefined ? "no rule" : `${rule.layer} ${rule.kind} ${rule.value}`;
}

function where(c: ToolChange): string {
  return `${c.server === null ? "" : `${c.server} · `}${c.tool} · ${c.principal}`;
}

function calls(n: number): string {
  return n === 1 ? "1 call" : `${n} calls`;
}

function byName(c: ChangedCalls): string {
  return c.name_only === 0 ? "" : ` [name only: ${c.name_only}]`;
}

export function replayText(report: ReplayReport): string {
  const out: string[] = [
    `replay of ${calls(report.calls)} and ${report.lists} lists from ${report.logs.length} log(s) under ${report.policy.file}`,
  ];
  const section = (title: string, lines: string[]): void => {
    if (lines.length === 0) return;
    out.push("", `${title}:`, ...lines.map((l) => `  ${l}`));
  };
  section(
    "newly denied",
    report.newly_denied.map(
      (c) => `${where(c)}: ${calls(c.count)} now ${c.code ?? "hidden"} [${ruleText(c.rule)}]${byName(c)}`,
    ),
  );
  section(
    "newly allowed",
    report.newly_allowed.map(
      (c) =>
        `${where(c)}: ${calls(c.count)} refused before (${c.code ?? "hidden"} [${ruleText(c.rule)}]), now allowed [${ruleText(c.allowed_by)}]${byName(c)}`,
    ),
  );
  section("newly hidden", report.newly_hidden.map(where));
  section("newly visible", report.newly_visible.map(where));
  out.push("", `unchanged: ${calls(report.unchanged)}`);
  if (report.name_only > 0) {
    out.push(
      `name only: ${calls(report.name_only)} had no recorded arguments (logged without --audit-args): only their name stage was decided again`,
    );
  }
  return out.join("\n") + "\n";
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/`/g, "'");
}

export function replayMarkdown(report: ReplayReport): string {
  const out: string[] = [
    `### Replay under \`${cell(report.policy.file)}\``,
    "",
    `${calls(report.calls)} and ${report.lists} lists from ${report.logs.length} audit log(s): **${report.newly_denied.reduce((n, c) => n + c.count, 0)}** newly denied, **${report.newly_allowed.reduce((n, c) => n + c.count, 0)}** newly allowed, ${report.unchanged} unchanged${report.name_only > 0 ? `, ${report.name_only} re-decided by name only (no recorded arguments)` : ""}.`,
  ];
  const table = (title: string, rows: ChangedCalls[], ruleOf: (c: ChangedCalls) => string): void => {
    if (rows.length === 0) return;
    out.push(
      "",
      `#### ${title}`,
      "",
      "| server | tool | principal | calls | code | rule |",
      "|---|---|---|---:|---|---|",
    );
    for (const c of rows) {
      out.push(
        `| ${cell(c.server ?? "")} | ${cell(c.tool)} | ${cell(c.principal)} | ${c.count}${c.name_only > 0 ? ` (${c.name_only} by name)` : ""} | ${cell(c.code ?? "hidden")} | ${cell(ruleOf(c))} |`,
      );
    }
  };
  table("Newly denied", report.newly_denied, (c) => ruleText(c.rule));
  table("Newly allowed (code and rule: what refused them before)", report.newly_allowed, (c) =>
    ruleText(c.rule),
  );
  const tools = (title: string, rows: ToolChange[]): void => {
    if (rows.length === 0) return;
    out.push("", `#### ${title}`, "", ...rows.map((c) => `- ${cell(where(c))}`));
  };
  tools("Newly hidden tools", report.newly_hidden);
  tools("Newly visible tools", report.newly_visible);
  return out.join("\n") + "\n";
}
