import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { KeyObject } from "node:crypto";
import { approvalKeyring, ed25519PublicKey } from "../engine/controls/approvalSignature.js";
import { ToolgateError } from "../engine/errors.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";

/** The environment variable holding the HMAC secret approval artifacts may be signed with. */
export const APPROVAL_SECRET_ENV = "TOOLGATE_APPROVAL_SECRET";

export interface ApprovalKeySources {
  /** `--approval-key FILE`, as given (relative to the working directory). */
  keyFiles: readonly string[];
  /** config.yaml's `approval_keys`, relative to the configuration directory. */
  configKeys?: readonly { path: string }[];
  configDir?: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The keys approval artifacts must be signed with: the HMAC secret of TOOLGATE_APPROVAL_SECRET and every
 * Ed25519 public key named by `--approval-key` or config.yaml's `approval_keys`. Throws ToolgateError
 * `E_APPROVAL_KEY` naming the file or variable that is not a usable key. No keys at all is fine: then no
 * artifact approves, and an approval needs a person.
 */
export function loadApprovalKeys(sources: ApprovalKeySources): ApprovalKeyring {
  const ed25519: KeyObject[] = [];
  const files = [
    ...sources.keyFiles.map((f) => resolve(f)),
    ...(sources.configKeys ?? []).map((k) =>
      isAbsolute(k.path) || sources.configDir === undefined ? k.path : resolve(sources.configDir, k.path),
    ),
  ];
  for (const file of files) {
    let pem: string;
    try {
      pem = readFileSync(file, "utf8");
    } catch (error) {
      throw new ToolgateError(
        "E_APPROVAL_KEY",
        `cannot read the approval key ${file}: ${(error as Error).message}`,
      );
    }
    ed25519.push(ed25519PublicKey(pem, file));
  }
  const secret = sources.env[APPROVAL_SECRET_ENV];
  try {
    return approvalKeyring({ hmacSecrets: secret === undefined || secret === "" ? [] : [secret], ed25519 });
  } catch (error) {
    if (error instanceof ToolgateError) {
      throw new ToolgateError(error.code, `${APPROVAL_SECRET_ENV}: ${error.message}`, error.hint);
    }
    throw error;
  }
}
