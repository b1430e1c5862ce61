import type { ApprovalDesk } from "../session/approvalDesk.js";
import { markup, type SafeHtml } from "./html.js";

/**
 * /ui/approvals: calls under `approval_required` from clients that cannot ask their person, waiting for an
 * answer here (serve --http --dashboard). Each has an "Approve" and a "Deny" button (a POST with the
 * session's CSRF token); the answer is recorded with who gave it. The page reloads itself every 2 s (a
 * meta refresh: no script needed).
 */
export function approvalsBody(desk: ApprovalDesk | undefined, csrf: string): SafeHtml {
  if (desk === undefined) {
    return markup`<p class="banner">Approvals wait here under <code>toolgate serve --http --dashboard</code>.</p>`;
  }
  const pending = desk.pending();
  const now = Date.now();
  return markup`<meta http-equiv="refresh" content="2" />
    ${pending.length === 0 && markup`<p class="meta" id="no-approvals">No call is waiting for approval.</p>`}
    ${pending.map(
      (p) => markup`<section class="approval" data-tool="${p.tool}">
        <h2>${p.tool}${p.server !== null && markup` <span class="meta">on ${p.server}</span>`}</h2>
        <p class="meta">from ${p.client} · session ${p.session} · waits ${Math.max(0, Math.round((p.expiresAt - now) / 1000))} s more</p>
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

/** A person's answer from the form; `null` when it was taken, else why it was refused. */
export function answerApproval(
  desk: ApprovalDesk | undefined,
  form: URLSearchParams,
  who: string,
): string | null {
  if (desk === undefined) return "no call waits for approval here";
  const id = form.get("id") ?? "";
  const decision = form.get("decision");
  if (decision !== "approve" && decision !== "deny") return "the answer must be approve or deny";
  if (!desk.answer(id, decision === "approve", who))
    return "that call no longer waits (answered, timed out or cancelled)";
  return null;
}
