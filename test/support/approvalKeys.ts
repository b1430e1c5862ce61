// Keys for tests that need approval artifacts to approve: a fixed HMAC secret and an Ed25519 pair made at
// import. `signed` signs an artifact the way `toolgate approve` does.
import { generateKeyPairSync } from "node:crypto";
import { approvalKeyring, signApprovalArtifact } from "../../src/engine/controls/approvalSignature.js";

export const TEST_APPROVAL_SECRET = "test-approval-secret-0123456789abcdef";

const pair = generateKeyPairSync("ed25519");
export const TEST_ED25519_PRIVATE_PEM = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
export const TEST_ED25519_PUBLIC_PEM = pair.publicKey.export({ type: "spki", format: "pem" }).toString();

/** Trusts both test keys. */
export const TEST_KEYS = approvalKeyring({ hmacSecrets: [TEST_APPROVAL_SECRET], ed25519: [pair.publicKey] });

export function signed(artifact: Record<string, unknown>, with_: "hmac" | "ed25519" = "hmac") {
  return signApprovalArtifact(
    artifact,
    with_ === "hmac"
      ? { kind: "hmac", secret: TEST_APPROVAL_SECRET }
      : { kind: "ed25519", privateKeyPem: TEST_ED25519_PRIVATE_PEM },
  );
}
