import { INVALID_REQUEST, isJsonObject, type JsonRpcErrorObject } from "../rpc/jsonRpc.js";
import { claimsModernEra, missingEnvelope, readEnvelope } from "./envelope.js";
import {
  LEGACY_VERSIONS,
  MODERN_VERSIONS,
  UNSUPPORTED_PROTOCOL_VERSION,
  type Envelope,
  type Era,
} from "./eras.js";

/** The era one request is served in (with its envelope in the modern era), or the error to answer it with. */
export type EraStep =
  { ok: true; era: Era; envelope: Envelope | null } | { ok: false; error: JsonRpcErrorObject };

/**
 * The era of one connection, pinned by its first request, and the same answer on every surface (wrap,
 * serve over stdio and over HTTP) to a request of the other era: `initialize` opens a legacy session; a
 * request with the modern envelope pins the modern era, after which every request needs the envelope and
 * `initialize` is refused. `server/discover` is a probe and pins nothing: a client may still open a legacy
 * session after it. Pure bookkeeping; no I/O.
 */
export class EraPin {
  private pinned: Era | null;

  constructor(initial: Era | null = null) {
    this.pinned = initial;
  }

  /** The era this connection speaks, once a request said. */
  get era(): Era | null {
    return this.pinned;
  }

  read(method: string, params: unknown): EraStep {
    const probe = method === "server/discover";
    if (method === "initialize") {
      if (this.pinned === "modern") return { ok: false, error: initializeOnModern(params) };
      this.pinned = "legacy";
      return { ok: true, era: "legacy", envelope: null };
    }
    if (claimsModernEra(params)) {
      if (this.pinned === "legacy") return { ok: false, error: MODERN_ON_LEGACY };
      const reading = readEnvelope(params);
      if (!reading.ok) return reading;
      if (!probe) this.pinned = "modern";
      return { ok: true, era: "modern", envelope: reading.envelope };
    }
    // A modern connection takes only requests with the envelope; this one has none.
    if (this.pinned === "modern") return { ok: false, error: missingEnvelope() };
    if (!probe) this.pinned = "legacy";
    return { ok: true, era: "legacy", envelope: null };
  }
}

function initializeOnModern(params: unknown): JsonRpcErrorObject {
  const requested = isJsonObject(params) ? params.protocolVersion : undefined;
  return {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version: ${String(requested)} (this connection speaks revision ${MODERN_VERSIONS[0]}, which has no initialize)`,
    data: { supported: [...MODERN_VERSIONS], requested: requested ?? null },
  };
}

const MODERN_ON_LEGACY: JsonRpcErrorObject = {
  code: INVALID_REQUEST,
  message: `Invalid Request: this session began with initialize (protocol revision ${LEGACY_VERSIONS[0]} or older), so it takes no request of revision ${MODERN_VERSIONS[0]}; send those on a connection of their own`,
};
