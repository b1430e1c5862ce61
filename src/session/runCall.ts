import type { SessionCounters } from "../engine/model/decision.js";
import { settleOr, whenSettled, type Settled } from "../state/settled.js";
import { readApprovalAnswer, type ApprovalOutcome } from "./approvalQuestion.js";
import type { ApprovalRounds, RetryReading } from "./approvalRounds.js";
import type { CallStep } from "./callPipeline.js";
import type { CatalogState } from "./toolCatalog.js";
import { uncountedReason, type ToolSession } from "./toolSession.js";
import { NO_METRICS } from "../ops/gatewayMetrics.js";
import { timedPort } from "./callTiming.js";
import type { CallPort, CallRequest, CallTarget } from "./callPort.js";
import { receiptPort } from "./callReceipts.js";
import type { ReceiptSlot } from "../audit/receipt.js";

export type { ApprovedRound, CallPort, CallRequest, CallTarget } from "./callPort.js";

/** Invalid params: the JSON-RPC code for a retry whose state toolgate refuses. */
const INVALID_PARAMS = -32602;

/**
 * The whole flow of one call, the same on every surface and in both eras: read the retry round (modern),
 * count the request, refuse a retry whose state is not toolgate's, let the session decide (fetching the
 * catalog when it asks for it), ask the person, carry the approval, forward, answer. Decisions and their
 * records are the session's; the port moves the messages.
 *
 * Settles once the call is under way (forwarded, answered, or its question put): a surface that handles
 * messages in order goes on with the next while the person decides.
 */
export function runCall(
  session: ToolSession,
  rounds: ApprovalRounds,
  call: CallRequest,
  untimed: CallPort,
): Settled<void> {
  const timed = session.metrics === NO_METRICS ? untimed : timedPort(untimed, session.metrics);
  // A signed log: each decision recorded for the call leaves its receipt here, and the answer carries it.
  const receipt: ReceiptSlot | undefined = session.receipts ? { value: null } : undefined;
  const port = receipt === undefined ? timed : receiptPort(timed, receipt);
  const reading: Settled<RetryReading> =
    port.era === "modern"
      ? rounds.read(call.params, call.calledAs, call.args)
      : { kind: "fresh", params: call.params };
  return whenSettled(reading, (retry) => {
    // A retry answering toolgate's question is the same call, not another one.
    const counted = settleOr<SessionCounters, SessionCounters | null>(
      session.countRequest(retry.kind === "fresh"),
      (counters) => counters,
      (error) => {
        port.answer(port.uncounted(uncountedReason(error), receipt));
        return null;
      },
    );
    return whenSettled(counted, (counters) => {
      if (counters === null) return;
      return decided(session, rounds, call, port, retry, counters, receipt);
    });
  });
}

function decided(
  session: ToolSession,
  rounds: ApprovalRounds,
  call: CallRequest,
  port: CallPort,
  retry: RetryReading,
  counters: SessionCounters,
  receipt: ReceiptSlot | undefined,
): Settled<void> {
  const target = port.resolve(retry.kind === "refused" ? call.params : retry.params);
  if (target === null) return;
  if (retry.kind === "refused") {
    session.refusedRetry(
      call.requestId,
      target.server,
      target.tool,
      `the requestState of this retry was refused: ${retry.reason}`,
      call.args,
    );
    port.error(INVALID_PARAMS, `Invalid requestState: ${retry.reason}`, { reason: "invalid_request_state" });
    return;
  }
  const decide = (catalog: CatalogState | null): Settled<void> =>
    whenSettled(
      session.decideCall({
        requestId: call.requestId,
        server: target.server,
        tool: target.tool,
        params: target.params,
        catalog,
        counters,
        cannotAsk: port.cannotAsk,
        definitionShown: target.definitionShown,
        calledAs: call.calledAs,
        ...(target.via === undefined ? {} : { via: target.via }),
        ...(receipt === undefined ? {} : { receipt }),
      }),
      (step): Settled<void> => {
        if (step.kind !== "needs-catalog") return take(rounds, call, port, target, retry, step, false);
        // A surface that decides with its own catalog never needs another: fail closed.
        if (target.fetchCatalog === null || catalog !== null) {
          throw new Error("the call was decided without the server's catalog");
        }
        return target.fetchCatalog().then(decide);
      },
    );
  return whenSettled(target.before(), decide);
}

/** Carries out what the session decided for one call. */
function take(
  rounds: ApprovalRounds,
  call: CallRequest,
  port: CallPort,
  target: CallTarget,
  retry: RetryReading,
  step: CallStep,
  approved: boolean,
): void {
  const next = (outcome: ApprovalOutcome): void =>
    take(
      rounds,
      call,
      port,
      target,
      retry,
      step.kind === "ask" ? step.answered(outcome) : step,
      outcome.approved,
    );
  switch (step.kind) {
    case "forward":
      port.forward(
        step.params,
        approved && port.era === "modern" ? { calledAs: call.calledAs, args: call.args } : null,
        step.failed,
      );
      return;
    case "deny":
      port.answer(step.result);
      return;
    case "absent":
      target.absent();
      return;
    case "withdrawn":
      port.withdrawn();
      return;
    case "needs-catalog":
      throw new Error("the session asked for a catalog after deciding");
    case "ask":
      if (port.era === "legacy" || port.asksOutOfBand) {
        // The question does not hold up the client's other messages: they go on while the person decides.
        void port
          .ask(step.question, step.about)
          .then(next)
          .catch((error: unknown) => port.failed(error));
        return;
      }
      // The modern era has no request from server to client: the question goes back as the result, and the
      // retry brings the answer with toolgate's state.
      if (retry.kind === "approved") return next({ approved: true });
      if (retry.kind === "answer" && retry.answer !== undefined) {
        return next(readApprovalAnswer({ jsonrpc: "2.0", id: 0, result: retry.answer }));
      }
      port.answer(rounds.question(step.question, call.calledAs, call.args));
      return;
  }
}
