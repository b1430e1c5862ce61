import { digestCode } from "./digest.js";
import { markup, type SafeHtml } from "./html.js";
import type { AuditQuery, FoundEvent, LogStatus, SearchResult } from "./auditLogs.js";

/**
 * The audit page (/ui/audit): each log's chain status in `toolgate audit verify`'s words, then a search
 * form and the matching events, newest first. Arguments appear only as their digest (`args_sha256`): the
 * redacted arguments some events carry are left out too, since a page is easier to leak than a log file.
 */

export const SEARCH_LIMIT = 500;

export interface AuditPageInput {
  logs: LogStatus[];
  params: URLSearchParams;
  query: AuditQuery | null;
  problems: string[];
  result: SearchResult | null;
}

function count(n: number): string {
  return n === 1 ? "1 event" : `${n} events`;
}

function statusCell(s: LogStatus): SafeHtml {
  if (s.report === null) {
    return markup`<td class="status-broken">UNREADABLE</td>
      <td><code>${s.error?.code ?? "E_AUDIT_READ"}</code> ${s.error?.message ?? ""}</td>`;
  }
  const r = s.report;
  if (r.ok) {
    return markup`<td class="status-ok">OK</td>
      <td>${count(r.events)}, every link holds (seq 1..${r.last_seq}); head ${digestCode(r.head)}</td>`;
  }
  const b = r.break;
  const links =
    b.expected_prev === undefined
      ? null
      : markup`<br /><span class="meta">line ${b.detected_at}: expected prev ${digestCode(b.expected_prev)}, found ${digestCode(b.found_prev ?? "")}</span>`;
  const verified = `${count(r.events)} verified before the break; events from line ${b.line} on are not vouched for`;
  return markup`<td class="status-broken">BROKEN at line ${b.line} (${b.kind})</td>
    <td>${b.message}${links}<br /><span class="meta">${verified}</span></td>`;
}

function logsTable(logs: readonly LogStatus[]): SafeHtml {
  if (logs.length === 0) {
    return markup`<p class="banner warn">
      No audit log was given: start the dashboard with <code>--audit-log FILE</code> (repeatable).
    </p>`;
  }
  return markup`<table class="logs">
    <thead>
      <tr>
        <th scope="col">#</th>
        <th scope="col">File</th>
        <th scope="col">Chain</th>
        <th scope="col">Detail</th>
      </tr>
    </thead>
    <tbody>
      ${logs.map(
        (s) =>
          markup`<tr data-log="${s.index}">
            <td>${s.index + 1}</td>
            <td class="mono">${s.file}</td>
            ${statusCell(s)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function field(label: string, name: string, params: URLSearchParams, placeholder: string): SafeHtml {
  const value = params.get(name) ?? "";
  return markup`<label>${label} <input type="text" name="${name}" value="${value}" placeholder="${placeholder}" /></label>`;
}

function searchForm(input: AuditPageInput): SafeHtml {
  const chosen = input.params.get("log") ?? "";
  const logs = input.logs.map((s) => {
    const selected = String(s.index) === chosen ? markup` selected` : "";
    return markup`<option value="${s.index}"${selected}>${s.index + 1}: ${s.file}</option>`;
  });
  return markup`<form class="search" method="get" action="/ui/audit">
    <label>Log <select name="log"><option value="">all logs</option>${logs}</select></label>
    ${field("Tool contains", "tool", input.params, "read_file")}
    ${field("Code", "code", input.params, "E_TOOL_DENIED")}
    ${field("Client contains", "client", input.params, "stdio")}
    ${field("From (UTC)", "from", input.params, "2026-11-30T01:00Z")}
    ${field("To (UTC)", "to", input.params, "2026-11-30")}
    <button type="submit">Search events</button>
  </form>`;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function ruleText(rule: unknown): string {
  if (typeof rule !== "object" || rule === null) return "";
  const r = rule as Record<string, unknown>;
  return [r["layer"], r["kind"], r["value"]]
    .map(text)
    .filter((t) => t !== "")
    .join(" · ");
}

function eventRow(found: FoundEvent, logs: readonly LogStatus[]): SafeHtml {
  const e = found.event;
  const report = logs[found.log]?.report;
  const untrusted = report !== null && report !== undefined && !report.ok && found.line >= report.break.line;
  const list = e["event"] === "tools/list";
  const digest = e["args_sha256"];
  const flag = untrusted
    ? markup` class="untrusted" title="after the break in this log's chain: not vouched for"`
    : "";
  return markup`<tr${flag} data-line="${found.line}">
<td class="nowrap">${found.log + 1}:${found.line}${untrusted && " ⚠"}</td><td class="mono nowrap">${text(e["time"])}</td><td class="nowrap">${text(e["event"])}</td>
<td class="mono">${list ? `${text(e["shown"])} shown, ${text(e["hidden"])} hidden` : text(e["tool"])}</td>
<td>${text(e["server"])}</td><td>${text(e["client"])}</td><td class="nowrap">${text(e["decision"])}</td><td class="nowrap"><code>${text(e["code"])}</code></td>
<td class="prose">${ruleText(e["rule"])}</td><td class="prose">${text(e["reason"])}</td>
<td class="args">${typeof digest === "string" ? digestCode(digest) : digest === null ? "(no arguments)" : ""}</td></tr>`;
}

function results(input: AuditPageInput): SafeHtml | null {
  if (input.problems.length > 0) {
    return markup`${input.problems.map((p) => markup`<p class="banner error">${p}</p>`)}`;
  }
  const r = input.result;
  if (r === null) return null;
  const shown =
    r.matched > r.events.length
      ? `${r.matched} matching events; the newest ${r.events.length} are shown`
      : `${count(r.matched)} matching`;
  return markup`<p class="meta">${shown}. Arguments are shown only as their SHA-256 digest (args_sha256).</p>
    ${r.unreadable.map((i) => markup`<p class="banner error">Log ${i + 1} could not be read.</p>`)}
    <table class="events">
      <thead>
        <tr>
          <th scope="col">Log:line</th>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Tool</th>
          <th scope="col">Server</th>
          <th scope="col">Client</th>
          <th scope="col">Decision</th>
          <th scope="col">Code</th>
          <th scope="col">Rule</th>
          <th scope="col">Reason</th>
          <th scope="col" title="SHA-256 of the arguments; hover a digest for all of it, click it to select it">Arguments (SHA-256)</th>
        </tr>
      </thead>
      <tbody>
        ${r.events.map((f) => eventRow(f, input.logs))}
      </tbody>
    </table>`;
}

export function auditBody(input: AuditPageInput): SafeHtml {
  return markup`<section class="card">
      <h2>Chain status</h2>
      ${logsTable(input.logs)}
    </section>
    ${
      input.logs.length > 0 &&
      markup`<section class="card">
        <h2>Search events</h2>
        ${searchForm(input)}${results(input)}
      </section>`
    }`;
}
