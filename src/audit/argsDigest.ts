import { canonicalJson } from "../engine/pins/canonicalJson.js";
import { sha256Hex } from "../engine/pins/hashes.js";

export interface ArgumentsDigest {
  /** Hex SHA-256; `null` when the call carried no `arguments`. */
  sha256: string | null;
  /**
   * `true`: over the RFC 8785 canonical form, so equal arguments give equal digests whatever their key
   * order. `false`: the arguments have no canonical form (a string with an unpaired surrogate, which JSON
   * text can carry but RFC 8785 excludes), so the digest is over their JSON.stringify form instead.
   */
  canonical: boolean;
}

/** The digest the audit log keeps instead of the arguments themselves. */
export function argumentsDigest(args: unknown): ArgumentsDigest {
  if (args === undefined) return { sha256: null, canonical: true };
  let text: string;
  try {
    // Exact numbers: arguments that differ beyond a double's precision never share a digest.
    return { sha256: sha256Hex(canonicalJson(args, { exactNumbers: true })), canonical: true };
  } catch {
    text = JSON.stringify(args);
  }
  return { sha256: sha256Hex(text), canonical: false };
}
