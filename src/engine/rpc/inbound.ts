import { parseStrictJson } from "../json/strictJson.js";
import { frameEnvelope, type FrameEnvelope } from "./frameEnvelope.js";
import type { InboundFrame } from "./frames.js";
import { classifyMessage, INVALID_REQUEST, PARSE_ERROR, type JsonRpcMessage } from "./jsonRpc.js";

/** Nesting bound for every frame, either direction (docs/design.md, mistakes we do not repeat: very deep nesting is rejected). */
export const MAX_FRAME_DEPTH = 64;

export type InboundMessage =
  | { ok: true; kind: "request" | "notification" | "response"; message: JsonRpcMessage }
  /**
   * `code` is the JSON-RPC error to answer the sender with; `problem` is a short stable label for logs;
   * `envelope` what could still be told of the frame (its id, whether it is a request), to answer it by.
   */
  | { ok: false; code: number; problem: string; message: string; envelope: FrameEnvelope };

const NO_ENVELOPE: FrameEnvelope = { id: null, hasMethod: false };

/**
 * Parses and checks one frame. Everything the proxy forwards is what this returned, re-serialized: a
 * frame that cannot be read one way only (duplicate keys, bad UTF-8) never reaches the other side.
 */
export function readFrame(frame: InboundFrame): InboundMessage {
  switch (frame.kind) {
    case "oversize":
      return reject(
        NO_ENVELOPE,
        INVALID_REQUEST,
        "oversize",
        `Invalid Request: frame longer than ${frame.limitBytes} bytes (--max-frame-bytes); discarded`,
      );
    case "invalid-utf8":
      return reject(NO_ENVELOPE, PARSE_ERROR, "invalid-utf8", "Parse error: frame is not valid UTF-8");
    case "text":
      break;
  }
  // Every number a double would change is kept as written (jsonNumber.ts), to be forwarded so.
  const parsed = parseStrictJson(frame.text, { maxDepth: MAX_FRAME_DEPTH, exactNumbers: true });
  const text = frame.text;
  const envelope = (): FrameEnvelope => frameEnvelope(text);
  if (!parsed.ok) {
    switch (parsed.code) {
      case "E_JSON_SYNTAX":
        return reject(NO_ENVELOPE, PARSE_ERROR, "invalid-json", `Parse error: ${parsed.message}`);
      case "E_JSON_DUPLICATE_KEY":
        return reject(envelope(), INVALID_REQUEST, "duplicate-key", `Invalid Request: ${parsed.message}`);
      case "E_JSON_TOO_DEEP":
        return reject(envelope(), INVALID_REQUEST, "too-deep", `Invalid Request: ${parsed.message}`);
    }
  }
  if (Array.isArray(parsed.value)) {
    return reject(
      NO_ENVELOPE,
      INVALID_REQUEST,
      "batch",
      "Invalid Request: JSON-RPC batches are not accepted; send one message per line",
    );
  }
  const classified = classifyMessage(parsed.value);
  if (classified.kind === "invalid") {
    return reject(
      envelope(),
      INVALID_REQUEST,
      "not-json-rpc",
      `Invalid Request: not a JSON-RPC 2.0 message: ${classified.reason}`,
    );
  }
  return { ok: true, kind: classified.kind, message: classified.message };
}

function reject(envelope: FrameEnvelope, code: number, problem: string, message: string): InboundMessage {
  return { ok: false, code, problem, message, envelope };
}

/** The id to answer a refused frame under: its own when it is a request with one unambiguous id, else null. */
export function refusalId(inbound: Extract<InboundMessage, { ok: false }>): string | number | null {
  return inbound.envelope.hasMethod ? inbound.envelope.id : null;
}
