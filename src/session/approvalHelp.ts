import type { Rule } from "../engine/model/decision.js";

/**
 * What an `E_APPROVAL_REQUIRED` refusal ends with: the policy file and rule that asked for the approval, and
 * the ways of approving that the surface the call came through offers, so that the person reading the
 * refusal (often in a client that cannot ask them anything) knows what to do next.
 */

export interface ApprovalWays {
  surface: "wrap" | "serve";
  /** serve: whether the dashboard runs (`serve --dashboard`), where an operator answers out of band. */
  dashboard?: boolean;
  /** How many keys an approval artifact may be signed with; 0: no artifact can approve here. */
  artifactKeys: number;
}

/** `asked`: the person was asked about this call and did not approve it. */
export function approvalHelp(tool: string, rule: Rule, ways: ApprovalWays, asked: boolean): string {
  const at = rule.at;
  const where = at === undefined || at.file === "" ? "" : `${at.file}:${at.line}:${at.column}, `;
  const ask = [
    asked
      ? "call again and approve it when asked"
      : "a client with MCP form elicitation (toolgate asks its person, who ticks 'approve')",
  ];
  if (ways.surface === "serve") {
    ask.push(
      ways.dashboard === true
        ? "an approver in the dashboard's /ui/approvals while the call waits"
        : "the dashboard (start serve with --dashboard; a client that cannot ask then waits for an approver at /ui/approvals)",
    );
  }
  const keys =
    ways.surface === "serve"
      ? "--approval-key FILE, approval_keys in config.yaml, or TOOLGATE_APPROVAL_SECRET"
      : "--approval-key FILE or TOOLGATE_APPROVAL_SECRET";
  ask.push(
    ways.artifactKeys > 0
      ? `an artifact from \`toolgate approve --tool ${tool} …\` in the call's params._meta.approval`
      : `an artifact from \`toolgate approve --tool ${tool} …\` in the call's params._meta.approval, once ${ways.surface} trusts its key (${keys}; none is set)`,
  );
  return `. Required by ${where}tools.approval_required '${rule.value}'. To approve: ${ask.join("; or ")}`;
}
