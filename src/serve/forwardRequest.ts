import { ErrorCode, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { nestedDeeperThan } from "../engine/json/strictJson.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { UpstreamUnavailable } from "../upstream/upstreamLink.js";
import { isConnectionLoss, relayed, RelayedError } from "./relay.js";
import type { ServerSlot } from "./toolRouter.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
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
  extra: Extra,
  timeoutMs: number,
): Promise<Json> {
  const upstream = await slot.link.ready();
  const meta = params._meta as Json | undefined;
  const clientToken = meta?.progressToken as string | number | undefined;
  const timeout = new AbortController();
  const expired = () =>
    timeout.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs }));
  let timer = setTimeout(expired, timeoutMs);
  const route =
    clientToken === undefined
      ? null
      : upstream.progress.open((update) => {
          clearTimeout(timer);
          timer = setTimeout(expired, timeoutMs);
          // Sent now, synchronously queued ahead of the answer that may follow in the same read.
          void extra
            .sendNotification({
              method: "notifications/progress",
              params: { ...update, progressToken: clientToken },
            })
            .catch(() => {});
        });
  const forwarded = route === null ? params : { ...params, _meta: { ...meta, progressToken: route.token } };
  try {
    const answer = (await upstream.client.request({ method, params: forwarded } as never, ResultSchema, {
      signal: AbortSignal.any([extra.signal, timeout.signal]),
      // Our own timer bounds it (reset by progress the SDK never sees); the SDK's must not fire first.
      timeout: 2 ** 31 - 1,
    })) as Json;
    if (nestedDeeperThan(answer, MAX_FRAME_DEPTH)) {
      // Bounded like every frame toolgate reads; refused with an error, never left unanswered.
      throw new RelayedError(
        ErrorCode.InternalError,
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
    const malformedAnswer = error instanceof Error && error.name === "ZodError";
    const stopped = extra.signal.aborted || timeout.signal.aborted;
    if (!(error instanceof McpError) && !(error instanceof RelayedError) && !malformedAnswer && !stopped) {
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
