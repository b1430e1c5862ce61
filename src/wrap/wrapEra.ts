import { EraPin } from "../engine/protocol/eraPin.js";
import { META, MODERN_VERSIONS, type Envelope, type Era } from "../engine/protocol/eras.js";
import { shapeResult, type ServerIdentity } from "../engine/protocol/resultShape.js";
import {
  isJsonObject,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcRequest,
} from "../engine/rpc/jsonRpc.js";

/** What a client request says about the era, read before the proxy handles it. */
export type EraReading = { ok: true; era: Era } | { ok: false; error: JsonRpcErrorObject };

/**
 * The protocol era of one wrapped connection (docs/eras.md). wrap passes the era through: the client and the
 * server negotiate it between them (`initialize`, or `server/discover` and requests with the modern
 * envelope), and wrap follows. What it must know itself: which era the connection speaks (its first
 * request with the envelope other than the discover probe, or `initialize`), the client's latest envelope
 * (toolgate's own requests to a modern server carry it), the server's identity (toolgate's own results in
 * the modern era name it), and how a result toolgate makes must look in that era.
 */
export class WrapEra {
  private readonly pin = new EraPin();
  private envelope: Envelope | null = null;
  private server: ServerIdentity | null = null;

  get era(): Era | null {
    return this.pin.era;
  }

  /** The client's capabilities for this request: the envelope's in the modern era. */
  capabilities(): JsonObject | null {
    return this.envelope?.capabilities ?? null;
  }

  /**
   * Reads one client request (EraPin: the same answers as serve's): a modern one must have a valid envelope
   * (else the error to answer with, and nothing is forwarded); `initialize` pins the legacy era, any other
   * modern request the modern one.
   */
  read(request: JsonRpcRequest): EraReading {
    const step = this.pin.read(request.method, request.params);
    if (!step.ok) return step;
    if (step.envelope !== null) this.envelope = step.envelope;
    return { ok: true, era: step.era };
  }

  /** A `server/discover` answer: the server's identity (and that it speaks the modern era). */
  noteDiscover(result: unknown): { hasTools: boolean } | null {
    if (!isJsonObject(result) || !Array.isArray(result.supportedVersions)) return null;
    if (!result.supportedVersions.some((v) => MODERN_VERSIONS.includes(String(v)))) return null;
    const meta = isJsonObject(result._meta) ? result._meta : {};
    const info = meta[META.serverInfo];
    if (isJsonObject(info) && typeof info.name === "string" && typeof info.version === "string") {
      this.server = info as ServerIdentity;
    }
    const capabilities = isJsonObject(result.capabilities) ? result.capabilities : {};
    return { hasTools: isJsonObject(capabilities.tools) };
  }

  /** The server's name, as the modern era gives it (discover's serverInfo). */
  get serverName(): string | undefined {
    return this.server?.name;
  }

  /** Params of a request toolgate sends the server itself: with the client's envelope in the modern era. */
  ownParams(params: JsonObject): JsonObject {
    if (this.pin.era !== "modern" || this.envelope === null) return params;
    const meta: JsonObject = {
      [META.protocolVersion]: this.envelope.version,
      [META.clientCapabilities]: this.envelope.capabilities,
    };
    if (this.envelope.clientInfo !== undefined) meta[META.clientInfo] = this.envelope.clientInfo;
    return { ...params, _meta: meta };
  }

  /** A result toolgate makes itself (a deny, a question), valid in the connection's era. */
  ownResult(method: string, result: JsonObject): JsonObject {
    if (this.pin.era !== "modern") return result;
    return shapeResult("modern", method, result, this.server ?? { name: "toolgate", version: "0.1.0" });
  }

  /** A filtered `tools/list` answer: in the modern era private to this caller, whatever the server said. */
  filteredList(result: JsonObject): JsonObject {
    if (this.pin.era !== "modern") return result;
    return { ...result, ttlMs: typeof result.ttlMs === "number" ? result.ttlMs : 0, cacheScope: "private" };
  }
}
