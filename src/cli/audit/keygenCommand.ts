import { generateKeyPairSync } from "node:crypto";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { checkpointKeyId } from "../../audit/checkpoint.js";
import { printError } from "../errorReport.js";

const EXIT_BAD_INPUT = 2;

/**
 * `toolgate audit keygen`: an Ed25519 pair for signing audit logs. The private key goes to the gateway
 * (`--audit-signing-key`, mode 600), the public one to whoever verifies (`audit verify --key`, receipts).
 * An existing file is kept unless `--force`: a key overwritten by mistake leaves every log it signed
 * unverifiable.
 */
export function registerAuditKeygen(audit: Command): void {
  audit
    .command("keygen")
    .description("write a new Ed25519 key pair for signing audit logs (--audit-signing-key)")
    .requiredOption("--private <file>", "where to write the private key (give it to wrap or serve)")
    .requiredOption("--public <file>", "where to write the public key (give it to whoever verifies)")
    .option("--force", "overwrite files that exist")
    .action((flags: { private: string; public: string; force?: boolean }) => {
      const existing = [flags.private, flags.public].filter((f) => existsSync(f));
      if (existing.length > 0 && flags.force !== true) {
        printError(
          `error E_USAGE: ${existing.join(" and ")} ${existing.length === 1 ? "exists" : "exist"}; a key overwritten leaves the logs it signed unverifiable (give --force to overwrite)\n`,
        );
        process.exit(EXIT_BAD_INPUT);
      }
      const pair = generateKeyPairSync("ed25519");
      writeFileSync(flags.private, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
      // The mode given to writeFileSync applies only to a file it creates.
      chmodSync(flags.private, 0o600);
      writeFileSync(flags.public, pair.publicKey.export({ type: "spki", format: "pem" }));
      process.stderr.write(
        `toolgate: wrote ${flags.private} (private, mode 600) and ${flags.public} (public); key id ${checkpointKeyId(pair.publicKey)}\n`,
      );
    });
}
