import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from "node:crypto";
import { ToolgateError } from "../errors.js";
import type { ApprovalKeyring, ApprovalSigner } from "../model/approval.js";
import { canonicalJson } from "../pins/canonicalJson.js";
import { isPlainObject } from "./argumentTargets.js";

/**
 * Signed approval artifacts. The signature covers the artifact's RFC 8785 form without its `signature`
 * member, after a line naming what it is (so the bytes cannot be taken for anything else toolgate or
 * another program signs):
 *
 *   signature = { alg: "HS256" | "EdDSA", key_id, value: base64url(sig over SIGNED_PREFIX + JCS(artifact)) }
 *
 * `HS256` is HMAC-SHA256 with a shared secret (from the environment: `TOOLGATE_APPROVAL_SECRET`); `EdDSA`
 * is Ed25519, toolgate holding only the public key. `key_id` names the key (`hmac:`/`ed25519:` and 16 hex
 * digits of a hash of the key), so a signature cannot pick its key and algorithm independently: an HS256
 * signature must name an HMAC key, an EdDSA one an Ed25519 key. Verifying is deterministic and
 * synchronous (node:crypto), so the decision stays a pure function.
 */

export const SIGNED_PREFIX = "toolgate approval artifact v1\n";
/** Shortest HMAC secret accepted: 32 characters (a secret a person could guess approves nothing). */
export const MIN_APPROVAL_SECRET_LENGTH = 32;

export type ApprovalSigningKey =
  { kind: "hmac"; secret: string } | { kind: "ed25519"; privateKeyPem: string };

/** The bytes a signature covers: the artifact without `signature`, canonical, after SIGNED_PREFIX. */
export function approvalSignedText(artifact: Record<string, unknown>): string {
  const unsigned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(artifact)) {
    if (key !== "signature") {
      Object.defineProperty(unsigned, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return SIGNED_PREFIX + canonicalJson(unsigned);
}

export function hmacKeyId(secret: string): string {
  return `hmac:${createHash("sha256").update("toolgate approval key\n").update(secret).digest("hex").slice(0, 16)}`;
}

export function ed25519KeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return `ed25519:${createHash("sha256").update(der).digest("hex").slice(0, 16)}`;
}

/** Reads an Ed25519 public key (PEM, SPKI). Throws `E_APPROVAL_KEY` naming the file for anything else. */
export function ed25519PublicKey(pem: string, file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new ToolgateError(
      "E_APPROVAL_KEY",
      `cannot read the approval key ${file}: ${(error as Error).message}`,
      "give an Ed25519 public key in PEM form (`toolgate approve keygen` writes one)",
    );
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new ToolgateError(
      "E_APPROVAL_KEY",
      `the approval key ${file} is a ${key.asymmetricKeyType ?? "non-asymmetric"} key, not Ed25519`,
      "approval artifacts are verified with Ed25519 public keys",
    );
  }
  return key;
}

/** A keyring of HMAC secrets and Ed25519 public keys. Throws `E_APPROVAL_KEY` for a secret too short. */
export function approvalKeyring(keys: {
  hmacSecrets?: readonly string[];
  ed25519?: readonly KeyObject[];
}): ApprovalKeyring {
  const hmac = new Map<string, Buffer>();
  for (const secret of keys.hmacSecrets ?? []) {
    if (secret.length < MIN_APPROVAL_SECRET_LENGTH) {
      throw new ToolgateError(
        "E_APPROVAL_KEY",
        `the approval secret is ${secret.length} characters long; at least ${MIN_APPROVAL_SECRET_LENGTH} are needed`,
        "generate one, e.g. `openssl rand -hex 32`",
      );
    }
    hmac.set(hmacKeyId(secret), Buffer.from(secret, "utf8"));
  }
  const ed = new Map<string, KeyObject>();
  for (const key of keys.ed25519 ?? []) ed.set(ed25519KeyId(key), key);
  return {
    size: hmac.size + ed.size,
    verify(signature, signedText) {
      if (signature === undefined) return "the artifact is not signed";
      if (!isPlainObject(signature)) return "its signature is not an object {alg, key_id, value}";
      const { alg, key_id: keyId, value } = signature;
      if (typeof keyId !== "string" || typeof value !== "string") {
        return "its signature needs key_id and value (strings)";
      }
      const bytes = base64url(value);
      if (bytes === null) return "its signature value is not base64url";
      const data = Buffer.from(signedText, "utf8");
      if (alg === "HS256") {
        const secret = hmac.get(keyId);
        if (secret === undefined) return `it is signed with a key toolgate does not trust (${keyId}, HS256)`;
        const expected = createHmac("sha256", secret).update(data).digest();
        return expected.length === bytes.length && timingSafeEqual(expected, bytes)
          ? null
          : "its signature does not verify";
      }
      if (alg === "EdDSA") {
        const key = ed.get(keyId);
        if (key === undefined) return `it is signed with a key toolgate does not trust (${keyId}, EdDSA)`;
        return verify(null, data, key, bytes) ? null : "its signature does not verify";
      }
      return `its signature algorithm ${JSON.stringify(alg)} is not HS256 or EdDSA`;
    },
  };
}

/** The artifact with its signature: for `toolgate approve`, hosts and tests. */
export function signApprovalArtifact(
  artifact: Record<string, unknown>,
  key: ApprovalSigningKey,
): Record<string, unknown> & { signature: ApprovalSigner & { value: string } } {
  const text = Buffer.from(approvalSignedText(artifact), "utf8");
  if (key.kind === "hmac") {
    if (key.secret.length < MIN_APPROVAL_SECRET_LENGTH) {
      throw new ToolgateError(
        "E_APPROVAL_KEY",
        `the approval secret is shorter than ${MIN_APPROVAL_SECRET_LENGTH} characters`,
      );
    }
    const value = createHmac("sha256", key.secret).update(text).digest("base64url");
    return {
      ...withoutSignature(artifact),
      signature: { alg: "HS256", key_id: hmacKeyId(key.secret), value },
    };
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key.privateKeyPem);
  } catch (error) {
    throw new ToolgateError("E_APPROVAL_KEY", `cannot read the signing key: ${(error as Error).message}`);
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw new ToolgateError("E_APPROVAL_KEY", "the signing key is not an Ed25519 private key");
  }
  const value = sign(null, text, privateKey).toString("base64url");
  const keyId = ed25519KeyId(createPublicKey(privateKey));
  return { ...withoutSignature(artifact), signature: { alg: "EdDSA", key_id: keyId, value } };
}

/** Which key signed a verified artifact, as recorded. */
export function signerOf(signature: unknown): ApprovalSigner | undefined {
  if (!isPlainObject(signature)) return undefined;
  const { alg, key_id: keyId } = signature;
  return (alg === "HS256" || alg === "EdDSA") && typeof keyId === "string"
    ? { alg, key_id: keyId }
    : undefined;
}

function withoutSignature(artifact: Record<string, unknown>): Record<string, unknown> {
  const { signature: _signature, ...rest } = artifact;
  return rest;
}

function base64url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  return Buffer.from(text, "base64url");
}
