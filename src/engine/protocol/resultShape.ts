import { isJsonObject, type JsonObject } from "../rpc/jsonRpc.js";
import { CACHEABLE_METHODS, META, type Era } from "./eras.js";

/** Who answers: the `serverInfo` a modern result carries in its `_meta`. */
export interface ServerIdentity {
  name: string;
  version: string;
  [key: string]: unknown;
}

const RESULT_TYPES = new Set(["complete", "input_required"]);

/**
 * A result as the era it answers requires. Modern: `resultType` (`complete` unless the result is an
 * `input_required` one), the cache hints on cacheable methods (`ttlMs` 0 and `cacheScope` `private`
 * unless given: what toolgate shows is decided per caller, so nothing may be shared across callers), and
 * toolgate's own `serverInfo` in `_meta` (a server's behind it is replaced: the client talks to toolgate).
 * Legacy: none of these members, which a 2025 client does not know. Pure; returns a new object.
 */
export function shapeResult(
  era: Era,
  method: string,
  result: JsonObject,
  server: ServerIdentity,
): JsonObject {
  const { resultType, ttlMs, cacheScope: _cacheScope, _meta, ...rest } = result;
  const meta = isJsonObject(_meta) ? { ..._meta } : {};
  delete meta[META.serverInfo];
  if (era === "legacy") {
    return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
  }
  const kind = typeof resultType === "string" && RESULT_TYPES.has(resultType) ? resultType : "complete";
  const out: JsonObject = { ...rest, resultType: kind };
  if (kind === "complete" && CACHEABLE_METHODS.has(method)) {
    out.ttlMs = typeof ttlMs === "number" && Number.isInteger(ttlMs) && ttlMs >= 0 ? ttlMs : 0;
    out.cacheScope = "private";
  }
  out._meta = { ...meta, [META.serverInfo]: server };
  return out;
}
