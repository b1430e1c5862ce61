import { MIN_STATE_KEY_BYTES, RequestStateCodec } from "../engine/protocol/requestState.js";

/**
 * The key that signs the `requestState` of toolgate's approval questions in the modern era:
 * `$TOOLGATE_STATE_SECRET` (at least 32 bytes; replicas that check each other's states share it), else a
 * random key of this process. A secret too short to be one is an error (`null`, with `why`), never ignored.
 */
export function requestStateCodec(env: NodeJS.ProcessEnv): { codec: RequestStateCodec } | { why: string } {
  const secret = env.TOOLGATE_STATE_SECRET;
  if (secret === undefined || secret === "") return { codec: RequestStateCodec.ephemeral() };
  if (Buffer.byteLength(secret) < MIN_STATE_KEY_BYTES) {
    return {
      why: `TOOLGATE_STATE_SECRET must be at least ${MIN_STATE_KEY_BYTES} bytes (it signs approval states)`,
    };
  }
  return { codec: new RequestStateCodec(Buffer.from(secret, "utf8")) };
}
