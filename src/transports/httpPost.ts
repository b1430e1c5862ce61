import type { IncomingMessage, ServerResponse } from "node:http";
import { parseStrictJson } from "../engine/json/strictJson.js";
import { frameEnvelope } from "../engine/rpc/frameEnvelope.js";
import { MAX_FRAME_DEPTH } from "../engine/rpc/inbound.js";
import { classifyMessage, type JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { HttpClientIdentity } from "./httpEndpoint.js";
import { accepts, isJsonContentType, readBody, sendError } from "./httpMessages.js";
import type { LegacySessions } from "./legacySessions.js";
import type { ModernExchanges } from "./modernExchanges.js";

/**
 * A POST to /mcp from an identified client: one JSON-RPC message, checked in this order, each failure
 * answered with a JSON-RPC error body: media types (415, 406), the body size (413, counted as it arrives
 * and never buffered past the limit), strict JSON (400), one message and not a batch (400). Then it goes to
 * its era: the modern one (no session) or the session it names, or it opens one (`initialize`).
 */
export async function handleMcpPost<T extends HttpClientIdentity>(
  req: IncomingMessage,
  res: ServerResponse,
  token: T,
  to: {
    maxBodyBytes: number;
    modern: ModernExchanges<T>;
    sessions: LegacySessions<T>;
    /** A request (not a listen stream) is in flight until its response closes (drain waits for it). */
    inFlight?: (res: ServerResponse) => void;
  },
): Promise<void> {
  if (!isJsonContentType(req.headers["content-type"])) {
    sendError(res, 415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    return;
  }
  if (!accepts(req, "application/json", "text/event-stream")) {
    sendError(res, 406, -32000, "Not Acceptable: Accept must include application/json and text/event-stream");
    return;
  }
  const body = await readBody(req, to.maxBodyBytes);
  if (!body.ok) {
    if (body.status === 413) {
      // The rest of the body is never read: the connection is closed once the answer is out.
      res.on("finish", () => req.destroy());
      sendError(res, 413, -32000, `Payload Too Large: ${body.message} (--max-body-bytes)`, {
        connection: "close",
      });
    } else sendError(res, 400, -32700, `Parse error: ${body.message}`);
    return;
  }
  const parsed = parseStrictJson(body.text, { maxDepth: MAX_FRAME_DEPTH, exactNumbers: true });
  // A refused request is answered under its own id when it has one unambiguous id.
  const refusedId = (): JsonRpcId | null => {
    const envelope = frameEnvelope(body.text);
    return envelope.hasMethod ? envelope.id : null;
  };
  if (!parsed.ok) {
    sendError(
      res,
      400,
      parsed.code === "E_JSON_SYNTAX" ? -32700 : -32600,
      `${parsed.code}: ${parsed.message}`,
      {},
      parsed.code === "E_JSON_SYNTAX" ? null : refusedId(),
    );
    return;
  }
  if (Array.isArray(parsed.value)) {
    sendError(
      res,
      400,
      -32600,
      "Invalid Request: JSON-RPC batches are not accepted; send one message per request",
    );
    return;
  }
  const classified = classifyMessage(parsed.value);
  if (classified.kind === "invalid") {
    sendError(res, 400, -32600, `Invalid Request: ${classified.reason}`, {}, refusedId());
    return;
  }
  if (classified.kind === "request" && classified.message.method !== "subscriptions/listen")
    to.inFlight?.(res);
  if (await to.modern.route(req, res, token, classified)) return;
  if (classified.kind === "request" && classified.message.method === "initialize") {
    return to.sessions.open(req, res, token, classified.message);
  }
  const live = await to.sessions.find(req, res, token, body.text);
  if (live !== null) live.transport.post(classified.message, res, req.headers);
}
