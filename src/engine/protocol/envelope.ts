import { INVALID_PARAMS, isJsonObject, type JsonObject, type JsonRpcErrorObject } from "../rpc/jsonRpc.js";
import { LOG_LEVELS, META, MODERN_VERSIONS, UNSUPPORTED_PROTOCOL_VERSION, type Envelope } from "./eras.js";

export type EnvelopeReading = { ok: true; envelope: Envelope } | { ok: false; error: JsonRpcErrorObject };

/** Whether a request claims the modern era: its `_meta` names a protocol version. */
export function claimsModernEra(params: unknown): boolean {
  return (
    isJsonObject(params) && isJsonObject(params._meta) && Object.hasOwn(params._meta, META.protocolVersion)
  );
}

/**
 * The modern per-request envelope of `params._meta`, checked: a version toolgate speaks (else
 * UnsupportedProtocolVersion, -32022, with the versions it does), the client's capabilities as an object,
 * and the optional client info and log level well formed (else Invalid params, -32602). Pure.
 */
export function readEnvelope(params: unknown): EnvelopeReading {
  const meta = isJsonObject(params) && isJsonObject(params._meta) ? params._meta : null;
  if (meta === null || !Object.hasOwn(meta, META.protocolVersion))
    return { ok: false, error: missingEnvelope() };
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") return problem(META.protocolVersion, "not a string");
  if (!MODERN_VERSIONS.includes(version)) {
    return {
      ok: false,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${version}`,
        data: { supported: [...MODERN_VERSIONS], requested: version },
      },
    };
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isJsonObject(capabilities)) {
    return problem(META.clientCapabilities, capabilities === undefined ? "missing" : "not an object");
  }
  const envelope: Envelope = { version, capabilities };
  const info = meta[META.clientInfo];
  if (info !== undefined) {
    if (!isJsonObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      return problem(META.clientInfo, "not an object with string name and version");
    }
    envelope.clientInfo = info as Envelope["clientInfo"];
  }
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (typeof level !== "string" || !LOG_LEVELS.includes(level)) {
      return problem(META.logLevel, `not one of ${LOG_LEVELS.join(", ")}`);
    }
    envelope.logLevel = level;
  }
  return { ok: true, envelope };
}

/** A request without the envelope, where the modern era requires one. */
export function missingEnvelope(): JsonRpcErrorObject {
  return {
    code: INVALID_PARAMS,
    message: `Request is missing the required _meta envelope for protocol revision ${MODERN_VERSIONS[0]} (${META.protocolVersion}, ${META.clientCapabilities})`,
    data: { envelope: { missing: [META.protocolVersion] } },
  };
}

function problem(key: string, what: string): EnvelopeReading {
  return invalid(`Invalid _meta envelope for protocol revision ${MODERN_VERSIONS[0]}: ${key}: ${what}`, {
    envelope: { key, problem: what },
  });
}

function invalid(message: string, data: JsonObject): EnvelopeReading {
  return { ok: false, error: { code: INVALID_PARAMS, message, data } };
}
