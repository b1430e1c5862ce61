import type { Diagnostic } from "../engine/model/diagnostics.js";
import type { PrincipalRights } from "../engine/model/principal.js";
import type { SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { describeKind } from "./sourceTree.js";

/**
 * What a tokens-file entry's principal may do: `use:` (which doors: `mcp`, the default, and `dashboard`),
 * `dashboard:` (`viewer`, the default for a dashboard entry, or `approver`) and `approves:` (approvers only:
 * the entries whose calls they may answer). Every inconsistency is an error: a right that a typo grants or
 * silently drops is a security bug either way. Pure.
 */

const USES = ["mcp", "dashboard"] as const;
const DASHBOARD_ROLES = ["viewer", "approver"] as const;
/** The fields that choose an MCP client's context (meaningless for an entry that cannot call tools). */
export const CONTEXT_FIELDS = ["role", "agent", "session", "skills", "node"];

function problem(message: string, at: SourceRef): Diagnostic {
  return { severity: "error", code: "E_TOKENS_FIELD", message, ...at };
}

function field(node: SourceMap, key: string): SourceNode | undefined {
  return node.entries.find((e) => e.key === key)?.value;
}

function stringsOf(node: SourceNode): string[] | null {
  const items = node.kind === "seq" ? node.items : [node];
  const out: string[] = [];
  for (const item of items) {
    if (item.kind !== "scalar" || typeof item.value !== "string" || item.value === "") return null;
    out.push(item.value);
  }
  return out;
}

/** The entry's rights, or `null` with the problems added to `diagnostics`. */
export function parseRights(node: SourceMap, diagnostics: Diagnostic[]): PrincipalRights | null {
  const before = diagnostics.length;
  let uses: string[] = ["mcp"];
  const useNode = field(node, "use");
  if (useNode !== undefined) {
    const list = stringsOf(useNode);
    const unknown = list?.filter((u) => !(USES as readonly string[]).includes(u)) ?? [];
    if (list === null || list.length === 0 || unknown.length > 0) {
      diagnostics.push(
        problem(
          `'use' must list what this principal may use: ${USES.join(", ")} (e.g. use: [dashboard]), but this is ${list === null || list.length === 0 ? describeKind(useNode) : `'${unknown.join("', '")}'`}`,
          useNode.at,
        ),
      );
    } else uses = list;
  }
  const onDashboard = uses.includes("dashboard");
  let role: PrincipalRights["dashboard"] = onDashboard ? "viewer" : null;
  const roleNode = field(node, "dashboard");
  if (roleNode !== undefined) {
    const value = roleNode.kind === "scalar" ? roleNode.value : undefined;
    if (value !== "viewer" && value !== "approver") {
      diagnostics.push(
        problem(
          `'dashboard' must be ${DASHBOARD_ROLES.join(" or ")}, but this is ${describeKind(roleNode)}`,
          roleNode.at,
        ),
      );
    } else if (!onDashboard) {
      diagnostics.push(
        problem(
          `'dashboard: ${value}' has no effect unless use lists dashboard: write use: [dashboard] (or [mcp, dashboard])`,
          roleNode.at,
        ),
      );
    } else role = value;
  }
  let approves: string[] | null = null;
  const approvesNode = field(node, "approves");
  if (approvesNode !== undefined) {
    const list = stringsOf(approvesNode);
    if (list === null || list.length === 0) {
      diagnostics.push(
        problem(
          `'approves' must list the names of entries whose calls this approver may answer, but this is ${describeKind(approvesNode)}`,
          approvesNode.at,
        ),
      );
    } else if (role !== "approver") {
      diagnostics.push(
        problem(
          "'approves' applies to approvers only: add dashboard: approver (and use: [dashboard])",
          approvesNode.at,
        ),
      );
    } else approves = list;
  }
  if (diagnostics.length > before) return null;
  return { mcp: uses.includes("mcp"), dashboard: role, approves };
}

/**
 * `approves:` entries (of the entries that were read without error) that name no entry of the file: a typo
 * silently narrows today and widens the day someone takes that name.
 */
export function checkApprovesNames(items: readonly SourceMap[], names: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const item of items) {
    const node = field(item, "approves");
    if (node === undefined) continue;
    const items = node.kind === "seq" ? node.items : [node];
    for (const name of items) {
      if (
        name.kind === "scalar" &&
        typeof name.value === "string" &&
        name.value !== "" &&
        !names.has(name.value)
      ) {
        out.push(
          problem(
            `'approves' names '${name.value}', which no entry of this file is (names: ${[...names].join(", ")})`,
            name.at,
          ),
        );
      }
    }
  }
  return out;
}
