import { withReceipt, type ReceiptSlot } from "../audit/receipt.js";
import type { AnswerShape, CallPort } from "./callPort.js";

/**
 * The call's port with receipts: every result the call is answered with — the server's, a refusal, the
 * answer for a tool that is absent or hidden, a server that cannot be had — carries in its `_meta` the
 * receipt of the last decision recorded for the call (the slot the session's records fill). The one place
 * a receipt is attached, for every surface and both eras. JSON-RPC errors have no `_meta` and carry none.
 */
export function receiptPort(port: CallPort, slot: ReceiptSlot): CallPort {
  const attach: AnswerShape = (result) => withReceipt(result, slot.value);
  const then =
    (shape: AnswerShape | undefined): AnswerShape =>
    (result) =>
      attach(shape === undefined ? result : shape(result));
  return {
    era: port.era,
    asksOutOfBand: port.asksOutOfBand,
    cannotAsk: port.cannotAsk,
    resolve: (params) => {
      const target = port.resolve(params);
      if (target === null) return null;
      return { ...target, absent: (answered) => target.absent(then(answered)) };
    },
    uncounted: (reason, receipt) => port.uncounted(reason, receipt),
    forward: (params, approved, failed, answered) =>
      port.forward(params, approved, (reason) => attach(failed(reason)), then(answered)),
    ask: (question, about) => port.ask(question, about),
    answer: (result) => port.answer(attach(result)),
    error: (code, message, data) => port.error(code, message, data),
    withdrawn: () => port.withdrawn(),
    failed: (error) => port.failed(error),
  };
}
