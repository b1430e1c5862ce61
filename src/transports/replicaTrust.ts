import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * What replicas of `serve --http` prove to each other with `TOOLGATE_STATE_SECRET`, so that nothing they
 * follow or accept rests on the state store alone (anyone who can write to Redis could otherwise point a
 * session at a listener of theirs and receive its clients' requests, bearer tokens included):
 *
 * - an **ownership record** (which replica owns a 2025-era session) carries an HMAC over the session id and
 *   the owner's URL; a replica forwards a request only to an owner whose record verifies;
 * - a **hop proof** on a request one replica passes to another, an HMAC over the session id, the owner's
 *   URL and the time, which the owner checks before it treats the request as passed on (a client's own
 *   hop header is worth nothing).
 *
 * Each purpose has its own key, derived from the secret with HKDF-SHA256 and a label, so a value made for
 * one can never pass for another. Pure (node:crypto).
 */
export class ReplicaTrust {
  private readonly ownershipKey: Buffer;
  private readonly hopKey: Buffer;

  constructor(secret: string | Buffer) {
    const material = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
    if (material.length === 0) throw new Error("replicas need TOOLGATE_STATE_SECRET to trust each other");
    this.ownershipKey = derive(material, "ownership record v1");
    this.hopKey = derive(material, "replica hop v1");
  }

  /** The value stored for `sessionId`: its owner's URL and the HMAC that binds the two. */
  ownershipRecord(sessionId: string, owner: string): string {
    return `${RECORD_TAG} ${owner} ${this.mac(this.ownershipKey, [RECORD_TAG, sessionId, owner])}`;
  }

  /** The owner a record names, when a replica with the secret wrote it for this session; else why not. */
  readOwnership(sessionId: string, record: string): { owner: string } | { why: string } {
    const [tag, owner, mac, extra] = record.split(" ");
    if (tag !== RECORD_TAG || owner === undefined || mac === undefined || extra !== undefined) {
      return { why: "it is not a signed ownership record" };
    }
    return sameMac(mac, this.mac(this.ownershipKey, [RECORD_TAG, sessionId, owner]))
      ? { owner }
      : {
          why: "its signature does not match (written without TOOLGATE_STATE_SECRET, or for another session)",
        };
  }

  /** The hop header of a request passed to `owner` for `sessionId` at `now`. */
  hopProof(sessionId: string, owner: string, now: number = Date.now()): string {
    const time = String(now);
    return `${HOP_TAG}.${time}.${this.mac(this.hopKey, [HOP_TAG, sessionId, owner, time])}`;
  }

  /**
   * Whether `proof` was made by a replica with the secret, for this replica (`self`) and `sessionId`, within
   * {@link HOP_PROOF_WINDOW_MS} of `now` (either way: the replicas' clocks may differ a little).
   */
  checkHop(sessionId: string, self: string, proof: string, now: number = Date.now()): boolean {
    const [tag, time, mac, extra] = proof.split(".");
    if (tag !== HOP_TAG || time === undefined || mac === undefined || extra !== undefined) return false;
    if (!/^\d{1,15}$/.test(time) || Math.abs(now - Number(time)) > HOP_PROOF_WINDOW_MS) return false;
    return sameMac(mac, this.mac(this.hopKey, [HOP_TAG, sessionId, self, time]));
  }

  private mac(key: Buffer, fields: string[]): string {
    // Fields joined by a byte none of them holds (session ids, URLs and numbers carry no NUL).
    return createHmac("sha256", key).update(fields.join("\0")).digest("base64url");
  }
}

/** How old (or how far ahead) a hop proof may be. */
export const HOP_PROOF_WINDOW_MS = 120_000;
const RECORD_TAG = "tgo1";
const HOP_TAG = "tgh1";

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "toolgate replicas", `toolgate ${purpose}`, 32));
}

function sameMac(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
