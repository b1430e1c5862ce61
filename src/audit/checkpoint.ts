import { createHash, sign, verify, type KeyObject } from "node:crypto";
import { canonicalJson } from "../engine/pins/canonicalJson.js";
import type { ToolgateCode } from "../engine/model/codes.js";

/**
 * Signed checkpoints of an audit log. A checkpoint is a chain event (`event: "checkpoint"`) whose
 * `checkpoint` member is the signed statement and whose `signature` is the Ed25519 signature over it:
 *
 *   checkpoint = { log_id, seq, head, time, prev_checkpoint, key_id }
 *   signature  = base64(Ed25519(CHECKPOINT_PREFIX + RFC 8785 form of checkpoint))
 *
 * `log_id` names the log: the hash of its first line (chain.ts hashes lines), so it is fixed from the first
 * event on and a checkpoint of one log never passes for another's. `seq` and `head` are the last event
 * before the checkpoint (the checkpoint line's own `seq` − 1 and its `prev`): every event up to it is
 * vouched for, since each line hashes into the next. `prev_checkpoint` is the line hash of the checkpoint
 * before it in the log (`null` for the first), so checkpoints form a chain of their own. `key_id` names the
 * key: the hex SHA-256 of its public key's SPKI (DER) form.
 */

export const CHECKPOINT_PREFIX = "toolgate audit checkpoint v1\n";

export interface CheckpointPayload {
  log_id: string;
  seq: number;
  head: string;
  time: string;
  prev_checkpoint: string | null;
  key_id: string;
}

/** An Ed25519 key that signs checkpoints, with its id. */
export interface CheckpointSigner {
  keyId: string;
  privateKey: KeyObject;
}

/** Public keys a verifier trusts, by id. */
export type CheckpointKeys = ReadonlyMap<string, KeyObject>;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The id of an Ed25519 key (given its public half): hex SHA-256 of the SPKI DER bytes. */
export function checkpointKeyId(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
}

function signedBytes(payload: CheckpointPayload): Buffer {
  return Buffer.from(CHECKPOINT_PREFIX + canonicalJson(payload), "utf8");
}

/** The signature over a payload, base64. */
export function signCheckpoint(payload: CheckpointPayload, signer: CheckpointSigner): string {
  return sign(null, signedBytes(payload), signer.privateKey).toString("base64");
}

/** What is wrong with a checkpoint: a code of its own for each case, and a sentence without the line. */
export interface CheckpointFault {
  code: Extract<ToolgateCode, "E_CHECKPOINT_MALFORMED" | "E_CHECKPOINT_KEY" | "E_CHECKPOINT_SIGNATURE">;
  why: string;
}

export type CheckedCheckpoint =
  { ok: true; payload: CheckpointPayload } | { ok: false; fault: CheckpointFault };

/**
 * Reads a checkpoint event (as parsed from its line) and verifies its signature with one of `keys`. Its
 * place in a log (log id, head, the checkpoint before it) is the caller's to check.
 */
export function checkCheckpoint(event: Record<string, unknown>, keys: CheckpointKeys): CheckedCheckpoint {
  const payload = readPayload(event.checkpoint);
  if (typeof payload === "string") return malformed(payload);
  const signature = event.signature;
  if (typeof signature !== "string" || !BASE64.test(signature)) {
    return malformed("its `signature` is not a base64 string");
  }
  const key = keys.get(payload.key_id);
  if (key === undefined) {
    return {
      ok: false,
      fault: {
        code: "E_CHECKPOINT_KEY",
        why: `it is signed with key ${payload.key_id}, which is not one given with --key (${[...keys.keys()].join(", ")}): a checkpoint forged with another key, or made by a gateway with another key`,
      },
    };
  }
  if (!verify(null, signedBytes(payload), key, Buffer.from(signature, "base64"))) {
    return {
      ok: false,
      fault: {
        code: "E_CHECKPOINT_SIGNATURE",
        why: `its signature does not verify with key ${payload.key_id}: the checkpoint was changed after it was signed, or forged`,
      },
    };
  }
  return { ok: true, payload };
}

function malformed(why: string): CheckedCheckpoint {
  return { ok: false, fault: { code: "E_CHECKPOINT_MALFORMED", why } };
}

/** The payload with every field of the right form (a sentence saying which is not, otherwise). */
function readPayload(value: unknown): CheckpointPayload | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "it has no `checkpoint` object";
  }
  const p = value as Record<string, unknown>;
  const extra = Object.keys(p).filter((k) => !PAYLOAD_FIELDS.includes(k));
  if (extra.length > 0) return `its checkpoint has fields no checkpoint has: ${extra.join(", ")}`;
  for (const field of ["log_id", "head", "key_id"] as const) {
    if (typeof p[field] !== "string" || !SHA256_HEX.test(p[field])) {
      return `its checkpoint's \`${field}\` is not 64 lowercase hex characters`;
    }
  }
  if (typeof p.seq !== "number" || !Number.isSafeInteger(p.seq) || p.seq < 1) {
    return "its checkpoint's `seq` is not an integer from 1";
  }
  if (typeof p.time !== "string") return "its checkpoint's `time` is not a string";
  const prev = p.prev_checkpoint;
  if (prev !== null && (typeof prev !== "string" || !SHA256_HEX.test(prev))) {
    return "its checkpoint's `prev_checkpoint` is neither null nor 64 lowercase hex characters";
  }
  return {
    log_id: p.log_id as string,
    seq: p.seq,
    head: p.head as string,
    time: p.time,
    prev_checkpoint: prev,
    key_id: p.key_id as string,
  };
}

const PAYLOAD_FIELDS = ["log_id", "seq", "head", "time", "prev_checkpoint", "key_id"];
