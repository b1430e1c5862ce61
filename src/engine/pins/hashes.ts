import { createHash, hash } from "node:crypto";
import { ToolgateError } from "../errors.js";
import { canonicalJson } from "./canonicalJson.js";

/**
 * Lowercase hex SHA-256. A string is hashed as its UTF-8 bytes. The one-shot `crypto.hash` (Node ≥ 20.12)
 * takes half the time of a Hash object for the short texts of the audit log's two hashes per call.
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof hash === "function") return hash("sha256", data, "hex");
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The pin's `schema_hash`: SHA-256 of the RFC 8785 canonical bytes of the tool's inputSchema, or of `null`
 * when the tool declares none. Key order and number spelling (`100` vs `1e2`) do not change it; any change
 * of value does, except between integer literals beyond 2^53 that round to the same double (the spec's
 * stated blind spot). Throws `E_CANONICALIZE` for a schema JSON cannot express.
 */
export function schemaHash(inputSchema: unknown | undefined): string {
  return sha256Hex(canonicalJson(inputSchema === undefined ? null : inputSchema));
}

/**
 * The pin's `meta_hash`: SHA-256 of the description's UTF-8 bytes exactly as given, or of the empty string
 * when there is none (`undefined`, or `null` from a server that writes it out).
 */
export function metaHash(description: string | undefined): string {
  const value: unknown = description;
  if (value === undefined || value === null) return sha256Hex("");
  if (typeof value !== "string") {
    throw new ToolgateError(
      "E_PIN_INPUT",
      `a tool description must be a string to be pinned, not a ${typeof value}`,
    );
  }
  return sha256Hex(value);
}
