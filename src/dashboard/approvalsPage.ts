import type { Operator } from "../engine/model/principal.js";
import type { ApprovalDesk } from "../session/approvalDesk.js";
import { markup, type SafeHtml } from "./html.js";

/**
 * /ui/approvals: calls under `approval_required` from clients that cannot ask their person, waiting for an
 * answer here (serve --http --dashboard). An approver sees the calls they may answer — never their own,
 * only those of the principals their `approves:` names — each with an "Approve" and a "Deny" button (a
 * POST with the session's CSRF token); the answer is recorded with the approver's principal. A viewer is
 * told they cannot answer. The page reloads itself every 2 s (a meta refresh: no script needed).
 */
export function approvalsBody(desk: ApprovalDesk | undefined, csrf: string, operator: Operator): SafeHtml {
  if (desk === undefined) {
    return markup`<p class="banner">Approvals wait here under <code>toolgate serve --http --dashboard</code>.</p>`;
  }
  if (operator.rights.dashboard !== "approver") {
    return markup`<p class="banner warn" id="viewer-only">${operator.principal.name} signs in as a viewer: answering calls needs <code>dashboard: approver</code> in the tokens file.</p>`;
  }
  const pending = desk.pendingFor(operator);
  const now = Date.now();
  return markup`<meta http-equiv="refresh" content="2" />
    ${pending.length === 0 && markup`<p class="meta" id="no-approvals">No call is waiting for approval.</p>`}
    ${pending.map(
      (p) => markup`<section class="approval" data-tool="${p.tool}">
        <h2>${p.tool}${p.server !== null && markup` <span class="meta">on ${p.server}</span>`}</h2>
        <p class="meta">from ${p.principal.name} · session ${p.session} · waits ${Math.max(0, Math.round((p.expiresAt - now) / 1000))} s more</p>
        <pre>${questionLines(p.message).map(
          (line) => markup`${line}
`,
        )}</pre>
        <form method="post" action="/ui/approvals/answer">
          <input type="hidden" name="csrf" value="${csrf}" />
          <input type="hidden" name="id" value="${p.id}" />
          <button type="submit" name="decision" value="approve">Approve</button>
          <button type="submit" name="decision" value="deny">Deny</button>
        </form>
      </section>`,
    )}`;
}

/**
 * The question's lines as toolgate words it for the client's person, each escaped on its own (a line break
 * stays a line break; anything else unprintable shows as an escape). Its last line tells a client's
 * person how to answer the form; here the buttons say it.
 */
function questionLines(message: string): string[] {
  return message.split("\n").filter((line) => !line.startsWith("Tick 'approve'"));
}

/** A person's answer from the form; `null` when it was taken, else why it was refused (and the status). */
export function answerApproval(
  desk: ApprovalDesk | undefined,
  form: URLSearchParams,
  operator: Operator,
): { status: 400 | 403 | 404; why: string } | null {
  if (desk === undefined) return { status: 404, why: "no call waits for approval here" };
  const id = form.get("id") ?? "";
  const decision = form.get("decision");
  if (decision !== "approve" && decision !== "deny")
    return { status: 400, why: "the answer must be approve or deny" };
  const answered = desk.answer(id, decision === "approve", operator);
  return answered.ok ? null : { status: answered.status, why: answered.why };
}
