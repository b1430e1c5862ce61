import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { ToolgateError } from "../engine/errors.js";
import { checkpointKeyId, type CheckpointKeys, type CheckpointSigner } from "./checkpoint.js";

/**
 * The keys of signed audit logs, read from PEM files: the private key the gateway signs checkpoints with
 * (`--audit-signing-key`), and the public keys a verifier checks them with (`audit verify --key`). Anything
 * that is not a readable Ed25519 key of the right half is `E_AUDIT_KEY`, naming the file.
 */

const KEYGEN_HINT =
  "`toolgate audit keygen --private audit-signing.pem --public audit-signing.pub.pem` writes a pair";

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new ToolgateError("E_AUDIT_KEY", `cannot read the ${what} ${file}: ${(error as Error).message}`);
  }
}

function ed25519(key: KeyObject, file: string, what: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519") {
    throw new ToolgateError(
      "E_AUDIT_KEY",
      `the ${what} ${file} is a ${key.asymmetricKeyType ?? "non-asymmetric"} key, not Ed25519`,
      KEYGEN_HINT,
    );
  }
  return key;
}

/** `--audit-signing-key FILE`: an Ed25519 private key (PKCS#8 PEM), with the id of its public half. */
export function loadSigningKey(file: string): CheckpointSigner {
  const what = "audit signing key";
  const pem = readPem(file, what);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new ToolgateError(
      "E_AUDIT_KEY",
      `the ${what} ${file} is not a private key in PEM form: ${(error as Error).message}`,
      KEYGEN_HINT,
    );
  }
  ed25519(privateKey, file, what);
  return { privateKey, keyId: checkpointKeyId(createPublicKey(privateKey)) };
}

/** `--key FILE` of the verifier: Ed25519 public keys (SPKI PEM), by id. */
export function loadVerifyKeys(files: readonly string[]): CheckpointKeys {
  const keys = new Map<string, KeyObject>();
  for (const file of files) {
    const what = "public key";
    const pem = readPem(file, what);
    // createPublicKey would take a private key too (and derive its public half): refused, it is not to be
    // handed around.
    if (pem.includes("PRIVATE KEY")) {
      throw new ToolgateError(
        "E_AUDIT_KEY",
        `${file} holds a private key; give the verifier the public one`,
        KEYGEN_HINT,
      );
    }
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch (error) {
      throw new ToolgateError(
        "E_AUDIT_KEY",
        `the ${what} ${file} is not a public key in PEM form: ${(error as Error).message}`,
        KEYGEN_HINT,
      );
    }
    keys.set(checkpointKeyId(ed25519(key, file, what)), key);
  }
  return keys;
}

/** Public keys given as KeyObjects or PEM texts (the library's verifyReceipt), by id. */
export function keysOf(keys: readonly (KeyObject | string)[]): CheckpointKeys {
  const out = new Map<string, KeyObject>();
  for (const key of keys) {
    const object = typeof key === "string" ? createPublicKey(key) : key;
    const pub = object.type === "private" ? createPublicKey(object) : object;
    out.set(checkpointKeyId(ed25519(pub, "given", "public key")), pub);
  }
  return out;
}
