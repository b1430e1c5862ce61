import type { AuditRule } from "../audit/events.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { ChangedCalls, ToolChange } from "../replay/tally.js";
import type { CandidateListing } from "./candidates.js";
import { digestCode } from "./digest.js";
import { markup, queryString, type SafeHtml } from "./html.js";
import type { WhatIfOutcome } from "./whatIf.js";

/**
 * /ui/whatif: the candidate policies of the configuration directory, and for the one picked, what
 * `toolgate replay` says of the gateway's own audit logs under it: the calls newly denied and newly allowed
 * (per server, tool and principal, with code and rule), the tools newly hidden and newly visible, how many
 * calls are unchanged, and how many could be decided again by name only (logged without --audit-args).
 */

export interface WhatIfPageInput {
  dir: string;
  /** The policy in force, as the gateway names it; null: none. */
  inForce: string | null;
  auditLogs: readonly string[];
  listing: CandidateListing;
  chosen: string | null;
  /** A request the page refuses: its code and why (the listing is still shown). */
  refusal: { code: string; why: string } | null;
  outcome: WhatIfOutcome | null;
}

function calls(n: number): string {
  return n === 1 ? "1 call" : `${n} calls`;
}

function lists(n: number): string {
  return n === 1 ? "1 list" : `${n} lists`;
}

function ruleText(rule: AuditRule | null | undefined): string {
  return rule === null || rule === undefined ? "no rule" : `${rule.layer} · ${rule.kind} · ${rule.value}`;
}

function candidateList(input: WhatIfPageInput): SafeHtml {
  if (input.listing.candidates.length === 0) {
    return markup`<p class="banner warn" id="no-candidates">
      No candidate policy in ${input.dir}: put one beside the policy in force (a YAML or JSON file whose first
      key is <code>version:</code>), then reload this page.
    </p>`;
  }
  return markup`<ul class="candidates" id="candidates">
    ${input.listing.candidates.map((name) => {
      const href = `/ui/whatif${queryString([["candidate", name]])}`;
      return name === input.chosen
        ? markup`<li data-candidate="${name}"><a href="${href}" aria-current="true"><strong>${name}</strong></a></li>`
        : markup`<li data-candidate="${name}"><a href="${href}">${name}</a></li>`;
    })}
  </ul>`;
}

function skipped(listing: CandidateListing): SafeHtml | null {
  if (listing.skipped.length === 0) return null;
  return markup`<details class="skipped">
    <summary class="meta">${listing.skipped.length} other YAML or JSON file(s) of the directory are not candidates</summary>
    <ul class="notes">
      ${listing.skipped.map((s) => markup`<li><code>${s.name}</code>: ${s.why}</li>`)}
    </ul>
  </details>`;
}

function changedTable(id: string, title: string, rows: ChangedCalls[], allowed: boolean): SafeHtml {
  if (rows.length === 0) return markup`<h3>${title}</h3><p class="meta" id="${id}">none</p>`;
  return markup`<h3>${title}</h3>
    <table class="whatif" id="${id}">
      <thead>
        <tr>
          <th scope="col">Server</th>
          <th scope="col">Tool</th>
          <th scope="col">Principal</th>
          <th scope="col">Calls</th>
          <th scope="col">${allowed ? "Refused before with" : "Code"}</th>
          <th scope="col">${allowed ? "Rule that refused them" : "Rule"}</th>
          ${allowed && markup`<th scope="col">Now allowed by</th>`}
          <th scope="col" title="re-decided by the name stage only: no recorded arguments">By name only</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (c) => markup`<tr data-tool="${c.tool}" data-principal="${c.principal}">
            <td>${c.server ?? ""}</td>
            <td class="mono">${c.tool}</td>
            <td>${c.principal}</td>
            <td class="count">${c.count}</td>
            <td><code>${c.code ?? "hidden"}</code></td>
            <td class="prose">${ruleText(c.rule)}</td>
            ${allowed && markup`<td class="prose">${ruleText(c.allowed_by)}</td>`}
            <td class="count">${c.name_only}</td>
          </tr>`,
        )}
      </tbody>
    </table>`;
}

function toolTable(id: string, title: string, rows: ToolChange[]): SafeHtml {
  if (rows.length === 0) return markup`<h3>${title}</h3><p class="meta" id="${id}">none</p>`;
  return markup`<h3>${title}</h3>
    <table class="whatif" id="${id}">
      <thead>
        <tr><th scope="col">Server</th><th scope="col">Tool</th><th scope="col">Principal</th></tr>
      </thead>
      <tbody>
        ${rows.map(
          (c) => markup`<tr data-tool="${c.tool}" data-principal="${c.principal}">
            <td>${c.server ?? ""}</td><td class="mono">${c.tool}</td><td>${c.principal}</td>
          </tr>`,
        )}
      </tbody>
    </table>`;
}

function diagnosticsList(diagnostics: readonly Diagnostic[]): SafeHtml {
  return markup`<ul class="notes">
    ${diagnostics.map(
      (d) =>
        markup`<li class="${d.severity === "error" ? "error" : "warn"}"><code>${d.code}</code> ${d.file}${d.line > 0 ? `:${d.line}` : ""}${d.path === "" ? "" : ` ${d.path}`}: ${d.message}${d.hint === undefined ? "" : ` (${d.hint})`}</li>`,
    )}
  </ul>`;
}

function outcomeSection(outcome: WhatIfOutcome): SafeHtml {
  if (outcome.kind === "unusable") {
    const what =
      outcome.what === "candidate"
        ? "The candidate cannot be used: nothing is replayed under it."
        : "The configuration directory has errors: nothing is replayed.";
    return markup`<section class="card" id="whatif-result">
      <p class="banner error">${what}</p>${diagnosticsList(outcome.diagnostics)}
    </section>`;
  }
  if (outcome.kind === "refused") {
    const at = outcome.line > 0 ? `${outcome.file}:${outcome.line}` : outcome.file;
    const why =
      outcome.code === "E_AUDIT_CHAIN"
        ? "the log's chain does not hold: nothing is replayed from a log that may have been edited"
        : "replay cannot read this log";
    return markup`<section class="card" id="whatif-result">
      <p class="banner error"><code>${outcome.code}</code> ${at}: ${why} (${outcome.problem})</p>
    </section>`;
  }
  const d = outcome.diff;
  const denied = d.newly_denied.reduce((n, c) => n + c.count, 0);
  const allowed = d.newly_allowed.reduce((n, c) => n + c.count, 0);
  return markup`<section class="card" id="whatif-result" data-candidate="${outcome.candidate}">
    <h2>Under ${outcome.candidate} <span class="meta">policy digest ${digestCode(outcome.digest)}</span></h2>
    <p id="whatif-summary">
      ${calls(d.calls)} and ${lists(d.lists)} from ${outcome.logs.length} audit log(s):
      <strong id="count-newly-denied">${denied}</strong> newly denied,
      <strong id="count-newly-allowed">${allowed}</strong> newly allowed,
      <span id="count-unchanged">${d.unchanged}</span> unchanged,
      <span id="count-name-only">${d.name_only}</span> re-decided by name only.
    </p>
    ${
      d.name_only > 0 &&
      markup`<p class="banner warn" id="name-only">
        ${calls(d.name_only)} had no recorded arguments (the gateway logged without <code>--audit-args</code>):
        only their name stage was decided again, so a schema or scope of the candidate is not checked on them.
      </p>`
    }
    ${changedTable("newly-denied", "Newly denied", d.newly_denied, false)}
    ${changedTable("newly-allowed", "Newly allowed", d.newly_allowed, true)}
    ${toolTable("newly-hidden", "Newly hidden tools", d.newly_hidden)}
    ${toolTable("newly-visible", "Newly visible tools", d.newly_visible)}
    <p class="meta">
      ${outcome.logs.map((l) => markup`${l.file}: ${l.events} events, chain verified, head ${digestCode(l.head)}. `)}
    </p>
  </section>`;
}

export function whatIfBody(input: WhatIfPageInput): SafeHtml {
  const logs =
    input.auditLogs.length === 0
      ? markup`<p class="banner warn" id="no-logs">
          The gateway writes no audit log: start it with <code>--audit-log FILE</code> (and
          <code>--audit-args</code>, so calls can be decided again with their arguments).
        </p>`
      : markup`<p class="meta">
          Audit logs replayed: ${input.auditLogs.map((f, i) => markup`${i > 0 && ", "}<code>${f}</code>`)}
        </p>`;
  return markup`<section class="card">
      <h2>Candidate policies <span class="meta">in ${input.dir}</span></h2>
      <p class="meta">
        Policy in force: ${input.inForce === null ? "none" : markup`<code>${input.inForce}</code>`}. Pick a
        candidate to see what it would have decided on the calls the gateway recorded (the same replay as
        <code>toolgate replay --config-dir</code>).
      </p>
      ${logs}${candidateList(input)}${skipped(input.listing)}
    </section>
    ${input.refusal !== null && markup`<p class="banner error" id="whatif-refusal"><code>${input.refusal.code}</code> ${input.refusal.why}</p>`}
    ${input.outcome !== null && outcomeSection(input.outcome)}`;
}
