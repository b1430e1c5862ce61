import { ProtocolError, SdkError } from "@modelcontextprotocol/client";
import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { META } from "../engine/protocol/eras.js";
import { INTERNAL_ERROR, isJsonObject } from "../engine/rpc/jsonRpc.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { ANY_RESULT } from "../upstream/anyResult.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
import { upstreamAuthErrorIn } from "../upstream/upstreamAuth.js";
import type { RequestScope } from "./clientLink.js";
import { isConnectionLoss, relayed, RelayedError, REQUEST_TIMEOUT } from "./relay.js";
import type { ServerSlot } from "./toolRouter.js";

type Json = Record<string, unknown>;

/**
 * Sends one request to a server on behalf of the client and returns its answer. The client's progress token
 * is replaced by one toolgate routes (the server's progress comes back under the client's token, each
 * notification sent on before the answer behind it: see ProgressTap); the client's cancellation cancels it
 * upstream; `timeoutMs` bounds it, reset by each progress; errors keep the server's code and message. A
 * server that is down or goes away answers with an error at once.
 */
export async function forwardRequest(
  slot: ServerSlot,
  method: string,
  params: Json,
  scope: RequestScope,
  timeoutMs: number,
  logLevel?: string,
): Promise<Json> {
  const upstream = await slot.link.ready();
  const modernServer = upstream.client.getProtocolEra() === "modern";
  const meta = { ...((params._meta as Json | undefined) ?? {}) };
  if (modernServer) {
    // The modern era takes the log level and what the client can be asked with each request.
    if (logLevel !== undefined) meta[META.logLevel] = logLevel;
    if (scope.era === "modern") meta[META.clientCapabilities] = askable(scope.clientCapabilities);
  }
  const clientToken = meta.progressToken as string | number | undefined;
  const timeout = new AbortController();
  const expired = () => timeout.abort();
  let timer = setTimeout(expired, timeoutMs);
  const route =
    clientToken === undefined
      ? null
      : upstream.progress.open((update) => {
          clearTimeout(timer);
          timer = setTimeout(expired, timeoutMs);
          // Sent now, synchronously queued ahead of the answer that may follow in the same read.
          scope.notify("notifications/progress", { ...update, progressToken: clientToken });
        });
  if (route !== null) meta.progressToken = route.token;
  const { _meta: _, ...rest } = params;
  const forwarded: Json = Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
  const signal = AbortSignal.any([scope.signal, timeout.signal]);
  const send = async (p: Json): Promise<Json> =>
    (await upstream.client.request({ method, params: p }, ANY_RESULT, {
      signal,
      // Our own timer bounds it (reset by progress the SDK never sees); the SDK's must not fire first.
      timeout: 2 ** 31 - 1,
      // A server's own input_required result is the client's to answer (the caller passes it on).
      allowInputRequired: true,
    })) as Json;
  try {
    let answer = await send(forwarded);
    const kind = answer.resultType;
    if (kind !== undefined && kind !== "complete" && kind !== "input_required") {
      throw new RelayedError(
        INTERNAL_ERROR,
        `MCP server '${slot.name}' answered ${method} with resultType '${String(kind)}', which toolgate does not know; the answer was refused`,
      );
    }
    // A legacy client cannot take an input_required result: toolgate asks it the server's questions itself.
    if (kind === "input_required" && scope.ask !== null)
      answer = await fulfil(answer, forwarded, send, scope, timeoutMs);
    if (nestedDeeperThan(answer, MAX_FRAME_DEPTH)) {
      // Bounded like every frame toolgate reads; refused with an error, never left unanswered.
      throw new RelayedError(
        INTERNAL_ERROR,
        `toolgate refused the answer of MCP server '${slot.name}' to ${method}: nested deeper than ${MAX_FRAME_DEPTH} levels`,
      );
    }
    // What the operator configured for reaching the server (credentials, headers) never reaches the client.
    return slot.secrets.json(answer);
  } catch (error) {
    const refused = upstreamAuthErrorIn(error);
    if (refused !== null) {
      // The server's credentials were refused or could not be had: the connection itself is sound.
      throw new UpstreamUnavailable(slot.secrets.text(refused.message), refused.code);
    }
    if (isConnectionLoss(error)) {
      throw new UpstreamUnavailable(
        `MCP server '${slot.name}' closed the connection before answering ${method}; toolgate is reconnecting`,
      );
    }
    if (timeout.signal.aborted && !scope.signal.aborted) {
      throw new RelayedError(REQUEST_TIMEOUT, "Request timed out", { timeout: timeoutMs });
    }
    const answered = ProtocolError.isInstance(error) || error instanceof RelayedError;
    // The SDK's own refusal of an answer (a malformed one) is an answer, not a failure of the way to it.
    const refusedAnswer =
      SdkError.isInstance(error) && /INVALID_RESULT|UNSUPPORTED_RESULT_TYPE/.test(String(error.code));
    if (!answered && !refusedAnswer && !scope.signal.aborted) {
      // Not an answer of the server but a failure of the way to it: reconnect rather than reuse it.
      const reason = slot.secrets.text(`sending ${method} failed: ${messageOf(error)}`);
      slot.link.dropConnection(upstream, reason);
      throw new UpstreamUnavailable(
        `MCP server '${slot.name}' could not be reached (${reason}); toolgate is reconnecting`,
      );
    }
    const relay = relayed(error);
    throw new RelayedError(relay.code, slot.secrets.text(relay.message), slot.secrets.json(relay.data));
  } finally {
    clearTimeout(timer);
    route?.close();
  }
}

const MAX_INPUT_ROUNDS = 8;

/**
 * A modern server's `input_required` for a legacy client: each input request is put to the client as the
 * request it is in the legacy era (elicitation, sampling, roots), and the call is retried with the answers
 * and the server's state, until the server completes (at most {@link MAX_INPUT_ROUNDS} rounds).
 */
async function fulfil(
  first: Json,
  forwarded: Json,
  send: (params: Json) => Promise<Json>,
  scope: RequestScope,
  timeoutMs: number,
): Promise<Json> {
  let answer = first;
  for (let round = 0; round < MAX_INPUT_ROUNDS && answer.resultType === "input_required"; round++) {
    const requests = isJsonObject(answer.inputRequests) ? answer.inputRequests : {};
    const responses: Json = {};
    for (const [key, request] of Object.entries(requests)) {
      if (!isJsonObject(request) || typeof request.method !== "string") continue;
      responses[key] = await scope.ask!(
        request.method,
        isJsonObject(request.params) ? request.params : {},
        timeoutMs,
      );
    }
    const retry: Json = { ...forwarded, inputResponses: responses };
    if (typeof answer.requestState === "string") retry.requestState = answer.requestState;
    answer = await send(retry);
  }
  if (answer.resultType === "input_required") {
    throw new RelayedError(
      INTERNAL_ERROR,
      `the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`,
    );
  }
  return answer;
}

/** What a server may ask the client for through toolgate (it passes the questions on). */
function askable(capabilities: Json): Json {
  const out: Json = {};
  for (const key of ["roots", "sampling", "elicitation"])
    if (capabilities[key] !== undefined) out[key] = capabilities[key];
  return out;
}

/** A request other than a call to a server that cannot be had: its reason, and its code when not "down". */
export function unavailableError(error: UpstreamUnavailable): RelayedError {
  const data = error.code === "E_UPSTREAM_UNAVAILABLE" ? undefined : { code: error.code };
  return new RelayedError(INTERNAL_ERROR, error.message, data);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
