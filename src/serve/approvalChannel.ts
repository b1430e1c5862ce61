import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import { readApprovalAnswer, type ApprovalOutcome } from "../session/approvalQuestion.js";
import { clientElicitsForms } from "../session/clientCapabilities.js";
import type { ApprovalDesk } from "../session/approvalDesk.js";
import type { RequestScope } from "./clientLink.js";
import { messageOf } from "./forwardRequest.js";
import { isTimeout } from "./relay.js";
import type { Principal } from "../engine/model/principal.js";

/**
 * The channel to the person behind a call under `approval_required`, for one gateway session: the client's own
 * person through form-mode elicitation when the client can ask, else the dashboard's (out of band), else
 * nobody (the call is then refused with the reason).
 */
export class ApprovalChannel {
  constructor(
    private readonly options: {
      timeoutMs: number;
      principal: Principal;
      session: string;
      desk?: ApprovalDesk;
    },
  ) {}

  /** `null` when someone can be asked about this request's call; else why not. */
  cannotAsk(scope: RequestScope): string | null {
    if (clientElicitsForms({ capabilities: scope.clientCapabilities })) return null;
    if (this.options.desk !== undefined) return null;
    return scope.era === "legacy"
      ? "the client did not declare form-mode elicitation in initialize"
      : "the client did not declare form-mode elicitation in this request's capabilities";
  }

  /** A client that cannot ask its person, when the dashboard can: the person is asked there. */
  outOfBand(scope: RequestScope): boolean {
    return this.options.desk !== undefined && !clientElicitsForms({ capabilities: scope.clientCapabilities });
  }

  /**
   * The question to the person: in the dashboard (waiting in this request), or as form-mode
   * `elicitation/create` on the stream of the call it is about. Only an explicit approval approves.
   */
  async ask(
    question: JsonObject,
    scope: RequestScope,
    about: { tool: string; server: string | null },
  ): Promise<ApprovalOutcome> {
    const { desk, timeoutMs } = this.options;
    if (desk !== undefined && this.outOfBand(scope)) {
      const message =
        typeof question.message === "string" ? question.message : `Approve a call of ${about.tool}?`;
      return desk.wait(
        { principal: this.options.principal, session: this.options.session, ...about, message },
        timeoutMs,
        scope.signal,
      );
    }
    if (scope.ask === null)
      return { approved: false, outcome: "error", detail: "the client cannot be asked" };
    try {
      const result = await scope.ask("elicitation/create", question, timeoutMs);
      return readApprovalAnswer({ jsonrpc: "2.0", id: 0, result });
    } catch (error) {
      if (scope.signal.aborted) return { approved: false, outcome: "client-cancelled" };
      if (isTimeout(error)) return { approved: false, outcome: "timeout", detail: messageOf(error) };
      return { approved: false, outcome: "error", detail: messageOf(error) };
    }
  }
}
