import type { ServerListRow } from "../../engine/policy/enabledServers.js";
import { printable } from "../../engine/text/printable.js";

/**
 * The `.list mcp-servers` view (spec): `MCP servers:`, then one row per configured server and alias, ✓ when
 * enabled in the current context, ✗ otherwise, tagged `[filtered]` when at least one filter layer is active.
 */
export function renderListView(rows: readonly ServerListRow[]): string {
  const lines = ["MCP servers:"];
  if (rows.length === 0) lines.push("  (none configured)");
  for (const r of rows) lines.push(`  ${r.enabled ? "✓" : "✗"} ${r.name}${r.filtered ? " [filtered]" : ""}`);
  // Names come from servers and files: a control character in one is shown escaped, never acted on.
  return lines.map((l) => `${printable(l)}\n`).join("");
}

/** The view for `--format json` (documented in the README). */
export function listViewJson(rows: readonly ServerListRow[]): Record<string, unknown> {
  return {
    servers: rows.map((r) => ({
      name: r.name,
      kind: r.kind,
      ...(r.kind === "alias" ? { servers: r.servers } : {}),
      enabled: r.enabled,
      filtered: r.filtered,
    })),
  };
}
