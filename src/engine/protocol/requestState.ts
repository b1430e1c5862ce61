import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { isJsonObject } from "../rpc/jsonRpc.js";

/**
 * The `requestState` toolgate issues with its own `input_required` results (the modern era's
 * multi-round-trip requests): opaque to the client, and **authenticated**, because the client is the party
 * the approval it carries constrains. An HMAC-SHA256 over the payload binds it to the caller (principal),
 * the call (the tool as called and the digest of its arguments) and an expiry; its nonce makes it single
 * use (the caller spends it). A server's own state, when toolgate passes a server's `input_required` on
 * after an approval, travels inside toolgate's, so the approval cannot be detached from it. Any replica
 * with the same key can check it. Signed, not encrypted: it holds nothing secret.
 */
export interface RequestStatePayload {
  /** Who the state was issued to. */
  principal: string;
  /** The tool as the client called it. */
  tool: string;
  /** Hex SHA-256 of the call's arguments (RFC 8785). */
  argsDigest: string;
  /** Milliseconds since the epoch after which the state is refused. */
  expiresAt: number;
  /** Single use: spent when the state is used. */
  nonce: string;
  /** The person has approved this call already (this round answers a server's own question). */
  approved?: true;
  /** The server's own `requestState`, to be handed back to it with the retry. */
  upstream?: string;
}

export type RequestStateReading = { ok: true; payload: RequestStatePayload } | { ok: false; reason: string };

const PREFIX = "tgs1.";
export const MIN_STATE_KEY_BYTES = 32;

export class RequestStateCodec {
  constructor(private readonly key: Buffer) {
    if (key.length < MIN_STATE_KEY_BYTES)
      throw new Error(`a requestState key needs at least ${MIN_STATE_KEY_BYTES} bytes`);
  }

  /** A key of this process alone (states it issues are checked only here). */
  static ephemeral(): RequestStateCodec {
    return new RequestStateCodec(randomBytes(MIN_STATE_KEY_BYTES));
  }

  /** Whether `state` claims to be one of toolgate's (anything else is a server's, passed through). */
  static claims(state: unknown): state is string {
    return typeof state === "string" && state.startsWith(PREFIX);
  }

  static nonce(): string {
    return randomBytes(12).toString("base64url");
  }

  mint(payload: RequestStatePayload): string {
    const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
    return `${PREFIX}${body}.${this.mac(body)}`;
  }

  /** The payload of a state this key issued, or why it is not one (the binding is the caller's to check). */
  read(state: string): RequestStateReading {
    if (!state.startsWith(PREFIX)) return { ok: false, reason: "it is not a state toolgate issued" };
    const [body, mac, extra] = state.slice(PREFIX.length).split(".");
    if (body === undefined || mac === undefined || extra !== undefined)
      return { ok: false, reason: "it is malformed" };
    const expected = Buffer.from(this.mac(body), "utf8");
    const given = Buffer.from(mac, "utf8");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return {
        ok: false,
        reason: "its signature does not match (it was altered, or issued with another key)",
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      return { ok: false, reason: "it is malformed" };
    }
    if (!isPayload(value)) return { ok: false, reason: "it is malformed" };
    return { ok: true, payload: value };
  }

  private mac(body: string): string {
    return createHmac("sha256", this.key).update(`toolgate requestState v1\n${body}`).digest("base64url");
  }
}

function isPayload(value: unknown): value is RequestStatePayload {
  if (!isJsonObject(value)) return false;
  return (
    typeof value.principal === "string" &&
    typeof value.tool === "string" &&
    typeof value.argsDigest === "string" &&
    typeof value.expiresAt === "number" &&
    typeof value.nonce === "string" &&
    (value.approved === undefined || value.approved === true) &&
    (value.upstream === undefined || typeof value.upstream === "string")
  );
}
