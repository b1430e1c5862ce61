import type { ConfigDirNames } from "../config/configDir.js";
import type { ContextSelection } from "../engine/model/configDir.js";
import { formatDiagnostic, type Diagnostic } from "../engine/model/diagnostics.js";
import { layerPatternText } from "../engine/policy/layers.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { markup, queryString, type SafeHtml } from "./html.js";
import { itemRuleLines, itemsTable } from "./itemsTable.js";
import { COLUMNS, rowCells, type Matrix, type ServerMatrix } from "./matrix.js";

/**
 * The verdict matrix page (/ui/): the context form, then per enabled server a table of its tools × layers.
 * A catalog is paged (PAGE_SIZE rows) so a server with 10,000 tools renders in milliseconds: every tool is
 * judged (the counts and dead patterns need them all), only one page is worded and written.
 */

export const PAGE_SIZE = 200;

export interface MatrixPageInput {
  names: ConfigDirNames;
  nodes: string[];
  selection: ContextSelection;
  unknown: string[];
  diagnostics: Diagnostic[];
  /** Why the matrix could not be drawn, when the engine refused the context. */
  failure: string | null;
  /** null when the context cannot be used (an error above). */
  matrix: Matrix | null;
  policy: ActivePolicy | null;
  query: URLSearchParams;
  csrf: string;
}

const GLYPH = { allow: "✓", hide: "✗", none: "·" } as const;

function options(name: string, values: readonly string[], chosen: string | undefined): SafeHtml {
  const list = values.map((v) => {
    const selected = v === chosen ? markup` selected` : "";
    return markup`<option value="${v}"${selected}>${v}</option>`;
  });
  return markup`<select name="${name}"><option value="">(none)</option>${list}</select>`;
}

function contextForm(input: MatrixPageInput): SafeHtml {
  const s = input.selection;
  const tool = input.query.get("tool") ?? "";
  const nodeSelect =
    input.nodes.length === 0
      ? markup`<select name="node" disabled><option value="">(no graph agent)</option></select>`
      : options("node", input.nodes, s.node);
  return markup`<section class="card">
    <form class="context" method="get" action="/ui/">
      <label>Role ${options("role", input.names.roles, s.role)}</label>
      <label>Agent ${options("agent", input.names.agents, s.agent)}</label>
      <label>Session ${options("session", input.names.sessions, s.session)}</label>
      <label>Node ${nodeSelect}</label>
      <fieldset class="skills">
        <legend>Skills</legend>
        ${
          input.names.skills.length === 0
            ? markup`<span class="meta">(none defined)</span>`
            : input.names.skills.map((k) => {
                const checked = s.skills.includes(k) ? markup` checked` : "";
                return markup`<label><input type="checkbox" name="skill" value="${k}"${checked} /> ${k}</label>`;
              })
        }
      </fieldset>
      <label>Tool name contains <input type="text" name="tool" value="${tool}" /></label>
      <button type="submit">Show verdicts</button>
    </form>
    <form class="refresh" method="post" action="/ui/refresh">
      <input type="hidden" name="csrf" value="${input.csrf}" />
      ${selectionFields(s)}
      <button type="submit" class="secondary">Fetch tool catalogs again</button>
    </form>
  </section>`;
}

function selectionFields(s: ContextSelection): SafeHtml[] {
  const pairs: [string, string | undefined][] = [
    ["role", s.role],
    ["agent", s.agent],
    ["session", s.session],
    ["node", s.node],
    ...s.skills.map((k): [string, string] => ["skill", k]),
  ];
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => markup`<input type="hidden" name="${k}" value="${v}" />`);
}

function diagnosticsList(diagnostics: readonly Diagnostic[]): SafeHtml | null {
  if (diagnostics.length === 0) return null;
  return markup`<section class="card">
    <h2>Configuration findings</h2>
    <ul class="notes">
      ${diagnostics.map(
        (d) =>
          markup`<li class="${d.severity === "error" ? "error" : "warn"}">
            <code>${formatDiagnostic(d)}</code>
          </li>`,
      )}
    </ul>
  </section>`;
}

function pageLink(query: URLSearchParams, server: string, index: number, n: number): string {
  const q = new URLSearchParams(query);
  q.set(`page.${server}`, String(n));
  return `/ui/${queryString([...q])}#server-${index}`;
}

function pager(
  query: URLSearchParams,
  server: string,
  index: number,
  current: number,
  pages: number,
): SafeHtml | null {
  if (pages <= 1) return null;
  const links: SafeHtml[] = [];
  const show = (n: number): boolean => n <= 2 || n > pages - 2 || Math.abs(n - current) <= 3;
  let gap = false;
  for (let n = 1; n <= pages; n++) {
    if (!show(n)) {
      if (!gap) links.push(markup`<span class="meta">…</span>`);
      gap = true;
      continue;
    }
    gap = false;
    links.push(
      n === current
        ? markup`<span aria-current="page">${n}</span>`
        : markup`<a href="${pageLink(query, server, index, n)}">${n}</a>`,
    );
  }
  return markup`<nav class="pages" aria-label="pages of ${server}">
    <span class="meta">Page</span>${links}
  </nav>`;
}

function notes(m: ServerMatrix): SafeHtml | null {
  const items = [
    ...m.invalid.map((n) => markup`<li class="error">✗ ${n.message} <code>${n.where}</code></li>`),
    ...m.dead.map((n) => markup`<li class="warn dead">⚠ ${n.message} <code>${n.where}</code></li>`),
  ];
  return items.length === 0
    ? null
    : markup`<ul class="notes">
        ${items}
      </ul>`;
}

function layersList(m: ServerMatrix, policy: ActivePolicy | null): SafeHtml {
  const layers = [
    ...m.filter.layers.map((l) => ({ label: l.label, summary: layerPatternText(l) })),
    ...m.filter.extras.map((e) => ({ label: e.label, summary: e.summary })),
  ];
  const items = itemRuleLines(policy);
  if (layers.length === 0 && items.length === 0) {
    return markup`<p class="meta">filter layers: (none — all tools allowed)</p>`;
  }
  return markup`<ul class="notes layers">
    ${layers.map((l) => markup`<li>${l.label}: <code>${l.summary}</code></li>`)}${items}
  </ul>`;
}

function serverSection(input: MatrixPageInput, m: ServerMatrix, index: number): SafeHtml {
  const about = m.catalog.ok
    ? `${m.transport}, ${m.catalog.catalog.capabilities.join(", ") || "no capabilities"} · ${m.allowed} allowed / ` +
      `${m.tools.length} total · catalog fetched ${new Date(m.catalog.fetchedAt).toISOString()}`
    : `${m.transport}, unreachable`;
  const head = markup`<h2 id="server-${index}">${m.server} <span class="meta">(${about})</span></h2>`;
  if (!m.catalog.ok) {
    const c = m.catalog;
    return markup`<section class="card server" data-server="${m.server}">
      ${head}${layersList(m, input.policy)}
      <p class="banner error">
        <code>${c.code}</code> ${c.message}${c.hint !== undefined && markup`<br />hint: ${c.hint}`}
      </p>
      ${notes(m)}
    </section>`;
  }
  const filter = input.query.get("tool") ?? "";
  const rows = filter === "" ? m.tools : m.tools.filter((t) => t.tool.includes(filter));
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const asked = Number(input.query.get(`page.${m.server}`) ?? "1");
  const current = Number.isInteger(asked) ? Math.min(Math.max(asked, 1), pages) : 1;
  const shown = rows.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  const header = COLUMNS.map((c) =>
    m.active.has(c) ? markup`<th scope="col">${c}</th>` : markup`<th scope="col" class="col-off">${c}</th>`,
  );
  const body = shown.map((row) => {
    const cells = rowCells(row, m, input.policy);
    const verdict = row.visible
      ? markup`<td class="verdict allow">✓ visible</td>`
      : markup`<td class="verdict hide">✗ hidden by ${row.hiddenBy!.label}</td>`;
    // One line per row and cell: a page holds 200 rows of 11 cells, and whitespace is most of a cell.
    const tds = COLUMNS.map((c) => {
      const cell = cells[c];
      const cls = `cell ${cell.state}${cell.first ? " first" : ""}`;
      return markup`<td class="${cls}" data-column="${c}" title="${cell.title}">${GLYPH[cell.state]}</td>`;
    });
    return markup`<tr data-tool="${row.tool}"><td class="tool">${row.tool}</td>${verdict}${tds}</tr>\n`;
  });
  const range =
    rows.length === 0
      ? "no tools"
      : `tools ${(current - 1) * PAGE_SIZE + 1}–${(current - 1) * PAGE_SIZE + shown.length} of ${rows.length}`;
  return markup`<section class="card server" data-server="${m.server}">
    ${head}${layersList(m, input.policy)}${notes(m)}
    <p class="meta">
      ${range}${filter !== "" && ` whose name contains “${filter}”`}; hover a cell for the pattern that
      matched or the reason it hid the tool.
    </p>
    ${pager(input.query, m.server, index, current, pages)}
    <table class="matrix">
      <thead>
        <tr>
          <th scope="col">Tool</th>
          <th scope="col">Verdict</th>
          ${header}
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
    ${pager(input.query, m.server, index, current, pages)}${itemsTable(m, input.policy)}
  </section>`;
}

export function matrixBody(input: MatrixPageInput): SafeHtml {
  const problems = [
    ...input.unknown.map(
      (u) => markup`<p class="banner error">The directory defines no ${u}; it is left out.</p>`,
    ),
    ...(input.failure === null ? [] : [markup`<p class="banner error">${input.failure}</p>`]),
  ];
  const m = input.matrix;
  return markup`${contextForm(input)}${problems}${diagnosticsList(input.diagnostics)}${
    m === null && input.failure !== null
      ? null
      : m === null
        ? markup`<p class="banner error">
          This context cannot be shown: fix the errors above (toolgate info would exit 2 here).
        </p>`
        : markup`<p class="meta">Enabled servers decided by ${m.decidedBy}.</p>
          ${
            m.servers.length === 0 && markup`<p class="banner warn">No server is enabled in this context.</p>`
          }${m.servers.map((s, i) => serverSection(input, s, i))}${
            m.disabled.length > 0 &&
            markup`<section class="card">
              <h2>Not enabled in this context</h2>
              <ul class="notes">
                ${m.disabled.map(
                  (d) =>
                    markup`<li class="disabled" data-server="${d.server}">
                      ${d.server} <span class="meta">(${d.transport}) — not started</span>
                    </li>`,
                )}
              </ul>
            </section>`
          }`
  }`;
}
