import { argumentsDigest } from "../audit/argsDigest.js";
import { RequestStateCodec, type RequestStatePayload } from "../engine/protocol/requestState.js";
import { isJsonObject, type JsonObject } from "../engine/rpc/jsonRpc.js";
import type { ApprovalClaims } from "./approvalClaims.js";
import { settleOr, type Settled } from "../state/settled.js";

/** The key of toolgate's own question among a call's `inputRequests` / `inputResponses`. */
export const APPROVAL_INPUT_KEY = "toolgate_approval";

/** What a modern `tools/call` carries of toolgate's own multi-round-trip state. */
export type RetryReading =
  /** None of toolgate's: a first call, or a retry of a server's own question (passed on as it is). */
  | { kind: "fresh"; params: JsonObject }
  /** toolgate's state, refused: forged, altered, replayed, expired, or issued for another caller or call. */
  | { kind: "refused"; reason: string }
  /** The retry answering toolgate's approval question (`answer`: the client's response, if it sent one). */
  | { kind: "answer"; answer: JsonObject | undefined; params: JsonObject }
  /** The retry of a server's own question after the person approved the call. */
  | { kind: "approved"; params: JsonObject };

export interface ApprovalRoundsOptions {
  codec: RequestStateCodec;
  /** Where nonces are spent: the process's store of spent approval ids (shared by replicas later). */
  claims: ApprovalClaims;
  /** The caller the states are issued to. */
  principal: string;
  /** How long the person has to answer (the approval timeout). */
  ttlMs: number;
  now?: () => number;
}

/**
 * Approval in the modern era, where servers cannot send the client a request: the call is answered with
 * an `input_required` result holding the approval question, and the client's retry brings the person's
 * answer with toolgate's authenticated `requestState` (see RequestStateCodec), which binds it to this
 * caller, this call and a short expiry, and is spent on use.
 */
export class ApprovalRounds {
  private readonly now: () => number;

  constructor(private readonly options: ApprovalRoundsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Reads (and spends) toolgate's state in `params`; what to forward loses toolgate's own members. A state
   * whose single use cannot be checked (the store is unreachable) is refused.
   */
  read(params: JsonObject, calledAs: string, args: unknown): Settled<RetryReading> {
    const state = params.requestState;
    if (!RequestStateCodec.claims(state)) return { kind: "fresh", params };
    const reading = this.options.codec.read(state);
    if (!reading.ok) return { kind: "refused", reason: reading.reason };
    const p = reading.payload;
    if (p.principal !== this.options.principal)
      return { kind: "refused", reason: "it was issued to another caller" };
    if (p.tool !== calledAs) return { kind: "refused", reason: `it was issued for a call of '${p.tool}'` };
    if (p.argsDigest !== digestOf(args))
      return { kind: "refused", reason: "it was issued for other arguments" };
    if (p.expiresAt <= this.now()) return { kind: "refused", reason: "it has expired" };
    return settleOr(
      this.options.claims.claim(`state:${p.nonce}`, p.expiresAt),
      (free): RetryReading =>
        free
          ? retried(params, p)
          : { kind: "refused", reason: "it was used before (each state answers one retry)" },
      (error): RetryReading => ({
        kind: "refused",
        reason: `its single use cannot be checked now: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
  }

  /** The `input_required` result that puts `question` (elicitation/create params) to the person. */
  question(question: JsonObject, calledAs: string, args: unknown): JsonObject {
    return {
      resultType: "input_required",
      inputRequests: { [APPROVAL_INPUT_KEY]: { method: "elicitation/create", params: question } },
      requestState: this.mint(calledAs, args, {}),
    };
  }

  /** A server's own `input_required` after the person approved: its state travels inside toolgate's. */
  carry(result: JsonObject, calledAs: string, args: unknown): JsonObject {
    const upstream = typeof result.requestState === "string" ? result.requestState : undefined;
    return {
      ...result,
      requestState: this.mint(calledAs, args, {
        approved: true,
        ...(upstream === undefined ? {} : { upstream }),
      }),
    };
  }

  private mint(
    calledAs: string,
    args: unknown,
    extra: Pick<RequestStatePayload, "approved" | "upstream">,
  ): string {
    return this.options.codec.mint({
      principal: this.options.principal,
      tool: calledAs,
      argsDigest: digestOf(args),
      expiresAt: this.now() + this.options.ttlMs,
      nonce: RequestStateCodec.nonce(),
      ...extra,
    });
  }
}

/** What to forward of an accepted retry: toolgate's own members out, the server's own state back in. */
function retried(params: JsonObject, p: RequestStatePayload): RetryReading {
  const { requestState: _ours, inputResponses, ...rest } = params;
  const responses = isJsonObject(inputResponses) ? { ...inputResponses } : {};
  const answer = responses[APPROVAL_INPUT_KEY];
  delete responses[APPROVAL_INPUT_KEY];
  const forwarded: JsonObject = { ...rest };
  if (Object.keys(responses).length > 0) forwarded.inputResponses = responses;
  if (p.upstream !== undefined) forwarded.requestState = p.upstream;
  if (p.approved === true) return { kind: "approved", params: forwarded };
  return { kind: "answer", answer: isJsonObject(answer) ? answer : undefined, params: forwarded };
}

/** The call's arguments as the state binds them (no arguments: the digest of none, distinct from `{}`). */
function digestOf(args: unknown): string {
  return argumentsDigest(args).sha256 ?? "none";
}
