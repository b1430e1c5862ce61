import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { PatternEntry, Policy } from "../engine/model/policy.js";
import type { SourceRef } from "../engine/model/source.js";

/**
 * Warnings about policy entries written with a tool's name as serve's direct mode shows it
 * (`<server>__<tool>`) where only the server's own name matches. A tools.deny entry so written is matched
 * (decideName's `shownAs`), so it is not reported; every other field matches by the server's own tool name
 * and would silently apply to nothing. `servers`: the mcp.json names of the configuration. Pure.
 */
export function gatewayNameDiagnostics(policy: Policy, servers: readonly string[]): Diagnostic[] {
  if (servers.length === 0) return [];
  const out: Diagnostic[] = [];
  const check = (field: string, name: string, at: SourceRef, does: string) => {
    const server = servers.find((s) => name.startsWith(`${s}__`) && name.length > s.length + 2);
    if (server === undefined) return;
    const own = name.slice(server.length + 2);
    out.push(
      diagnosticAt(
        "warning",
        "W_GATEWAY_NAME",
        at,
        `${field} entry '${name}' names the tool as serve shows it (server '${server}'); ${field} matches the server's own tool names, so it ${does} nothing`,
        `write '${own}' (a tools.deny entry may use either name)`,
      ),
    );
  };
  const lists: Array<[string, readonly PatternEntry[], string]> = [
    ["tools.allow", policy.tools.allow ?? [], "allows"],
    ["tools.approval_required", policy.tools.approvalRequired, "applies to"],
    ["tools.restrict_scope", policy.tools.restrictScope, "applies to"],
    ["tools.redact_args", policy.tools.redactArgs, "applies to"],
  ];
  for (const [field, entries, does] of lists) {
    for (const entry of entries) check(field, entry.pattern, entry.at, does);
  }
  for (const [tool, entry] of Object.entries(policy.schemas)) check("schemas", tool, entry.at, "constrains");
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}
