import { Document, isSeq, Scalar, type YAMLMap } from "yaml";
import { printable } from "../../../engine/text/printable.js";
import type { ImportedEntry, ImportedPolicy } from "./model.js";

/**
 * The imported policy as a v2 policy file, written with the `yaml` package so that quoting is always
 * right whatever a tool name holds, with comments: where it came from, how the client decides, the rule
 * each entry came from, and what to do next (schemas). Pure.
 */
export function importedPolicyYaml(p: ImportedPolicy): string {
  const tools: Record<string, string[]> = {};
  if (p.allow !== null) tools.allow = p.allow.map((e) => e.pattern);
  if (p.deny.length > 0) tools.deny = p.deny.map((e) => e.pattern);
  if (p.approvalRequired.length > 0) tools.approval_required = p.approvalRequired.map((e) => e.pattern);
  const doc = new Document({
    version: "2.0",
    name: `${p.server} (imported from ${p.format})`,
    tools,
    enforcement: { unconstrained_tools: "warn" },
  });
  doc.commentBefore = comment([
    `toolgate policy import --from ${p.format}: server "${p.server}", from ${p.file}.`,
    ...p.notes,
    "Review it before you rely on it: toolgate policy validate --input <this file>.",
  ]);
  if (p.allow === null) {
    annotate(doc.contents as YAMLMap, "tools", [], "No allowlist: every tool not denied is allowed.");
  }
  const toolsNode = doc.get("tools", true) as YAMLMap;
  annotate(toolsNode, "allow", p.allow ?? [], p.allow?.length === 0 ? "Nothing is allowed." : undefined);
  annotate(toolsNode, "deny", p.deny, "Deny beats allow.");
  annotate(
    toolsNode,
    "approval_required",
    p.approvalRequired,
    "A person approves each call of these (MCP elicitation, or a signed artifact).",
  );
  const enforcement = doc.get("enforcement", true) as YAMLMap;
  enforcement.items[0]!.key = Object.assign(new Scalar("unconstrained_tools"), {
    commentBefore: comment([
      "No tool has a schema yet, so allowed calls go through with the warning E_TOOL_UNCONSTRAINED.",
      "Add a schema per tool (toolgate policy init writes them from the live server), then set this to deny.",
    ]),
  });
  return doc.toString({ lineWidth: 0 });
}

/** The rule each entry came from, after it; a note before the key. */
function annotate(map: YAMLMap, key: string, entries: readonly ImportedEntry[], before?: string): void {
  const pair = map.items.find((item) => (item.key as Scalar).value === key);
  if (pair === undefined) return;
  if (before !== undefined) pair.key = Object.assign(new Scalar(key), { commentBefore: comment([before]) });
  if (!isSeq(pair.value)) return;
  pair.value.items.forEach((item, i) => {
    (item as Scalar).comment = comment([entries[i]!.from]);
  });
}

/** Comment text: each line starts with a space after yaml's `#`; nothing in it can start a new line. */
function comment(lines: readonly string[]): string {
  return lines.map((line) => ` ${printable(line)}`).join("\n");
}
