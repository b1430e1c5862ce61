import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/**
 * SHA-256 of the RFC 8785 canonical form of a call's arguments: two calls with the same arguments get the
 * same digest however their keys were ordered, and the log never holds the arguments themselves.
 * `null` when the call carried no `arguments`.
 */
export function argumentsDigest(args: unknown): string | null {
  if (args === undefined) return null;
  const canonical = canonicalize(args);
  if (canonical === undefined) return null;
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}
