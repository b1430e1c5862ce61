import { ProtocolError, SdkError } from "@modelcontextprotocol/client";
import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { INTERNAL_ERROR } from "../engine/rpc/jsonRpc.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { ANY_RESULT } from "../upstream/anyResult.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
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
): Promise<Json> {
  const upstream = await slot.link.ready();
  const meta = params._meta as Json | undefined;
  const clientToken = meta?.progressToken as string | number | undefined;
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
  const forwarded = route === null ? params : { ...params, _meta: { ...meta, progressToken: route.token } };
  try {
    const answer = (await upstream.client.request({ method, params: forwarded }, ANY_RESULT, {
      signal: AbortSignal.any([scope.signal, timeout.signal]),
      // Our own timer bounds it (reset by progress the SDK never sees); the SDK's must not fire first.
      timeout: 2 ** 31 - 1,
      // A server's own input_required result is the client's to answer (the caller passes it on).
      allowInputRequired: true,
    })) as Json;
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

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
