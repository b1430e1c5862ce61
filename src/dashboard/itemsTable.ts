import type { ItemListView, ItemRow } from "../engine/policy/itemViews.js";
import { itemHiddenWhy, itemRulesText, itemSections } from "../engine/policy/itemViews.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { markup, type SafeHtml } from "./html.js";
import type { ServerMatrix } from "./matrix.js";

/**
 * Beside a server's tools in the matrix: what the policy's opt-in resources:/prompts: sections let through
 * of its resources, resource templates and prompts (itemListViews decides, as for `toolgate info`). Drawn
 * only when the policy has a section; a server with thousands of resources is rare, so no paging.
 */

const TITLE: Record<ItemListView["list"], string> = {
  resources: "Resource",
  templates: "Resource template",
  prompts: "Prompt",
};

/** The sections as lines for the server's list of filter layers. */
export function itemRuleLines(policy: ActivePolicy | null): SafeHtml[] {
  return itemSections(policy?.compiled.policy).map(
    (s) => markup`<li>${s.section}: <code>${itemRulesText(s.section, s.rules)}</code></li>`,
  );
}

function verdict(r: ItemRow): SafeHtml {
  const d = r.decision;
  if (d.decision === "allow") return markup`<td class="verdict allow">✓ visible</td>`;
  return markup`<td class="verdict hide">✗ ${itemHiddenWhy(r)}</td>`;
}

function row(list: ItemListView, r: ItemRow): SafeHtml {
  const d = r.decision;
  const rule = d.rule.at === undefined ? d.rule.value : `${d.rule.kind} '${d.rule.value}'`;
  return markup`<tr data-item="${r.name}" data-list="${list.list}"><td class="meta">${TITLE[list.list]}</td><td class="tool">${r.name}</td>${verdict(r)}<td title="${d.reason}">${d.code ?? rule}</td></tr>\n`;
}

/** The table of one server's items, or nothing when the policy has no section. */
export function itemsTable(m: ServerMatrix, policy: ActivePolicy | null): SafeHtml | null {
  if (itemSections(policy?.compiled.policy).length === 0 || !m.catalog.ok) return null;
  if (m.items === null) {
    return markup`<p class="banner warn">The server's resources and prompts could not be listed (see the log).</p>`;
  }
  const absent = m.items
    .filter((l) => !l.offered && l.list !== "templates")
    .map((l) => (l.list === "prompts" ? "prompts" : "resources"));
  const rows = m.items.flatMap((l) => l.rows.map((r) => row(l, r)));
  const counts = m.items
    .filter((l) => l.offered)
    .map((l) => `${TITLE[l.list].toLowerCase()}s ${l.allowed} allowed / ${l.rows.length} total`)
    .join(" · ");
  return markup`<h3>Resources and prompts</h3>
    <p class="meta items-summary">
      ${counts === "" ? "nothing listed" : counts}${absent.length > 0 && ` · the server offers no ${absent.join(" or ")}`}
    </p>
    ${
      rows.length > 0 &&
      markup`<table class="matrix items">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Name</th>
            <th scope="col">Verdict</th>
            <th scope="col">Rule</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>`
    }`;
}
