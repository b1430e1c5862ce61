import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { signApprovalArtifact, type ApprovalSigningKey } from "../engine/controls/approvalSignature.js";
import { ToolgateError } from "../engine/errors.js";
import { APPROVAL_SECRET_ENV } from "./approvalKeys.js";
import { describeError, printError } from "./errorReport.js";

interface ApproveFlags {
  tool?: string;
  resource: string[];
  approver: string;
  ttl: number;
  scope?: string;
  id?: string;
  privateKey?: string;
  principal?: string;
  subject?: string;
  issuer?: string;
}

const EXIT_BAD_INPUT = 2;

/**
 * `toolgate approve`: mints a signed approval artifact, the only kind that approves a call by itself
 * (hosts put it in a call's `params._meta.approval`; a person's answer through elicitation is the other
 * way). `toolgate approve keygen` writes an Ed25519 pair: the private key signs, the public one is what
 * toolgate trusts (`--approval-key`, config.yaml's `approval_keys`).
 */
export function registerApproveCommand(program: Command): void {
  const approve = program
    .command("approve")
    .description("mint a signed approval artifact for one call of a tool under tools.approval_required")
    // Checked in the action, not by commander: a required option here would also bind `approve keygen`.
    .option("--tool <name>", "the tool the artifact approves (bound_tool; required)")
    .option(
      "--resource <value>",
      "a resource the call names, a path or URL (bound_resource; repeatable; required when the call names one)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option("--approver <who>", "who approves (recorded in the audit log)", process.env.USER ?? "operator")
    .option("--ttl <seconds>", "how long the artifact is valid", positiveInteger, 600)
    .option("--scope <text>", "what was approved, in words (recorded, not enforced)")
    .option(
      "--principal <name>",
      "approve only this static-token principal's call (its tokens-file entry's name; stdio for wrap's client)",
    )
    .option(
      "--subject <sub>",
      "with --issuer: approve only this OAuth principal's call (the access token's sub and iss)",
    )
    .option("--issuer <url>", "with --subject: the OAuth principal's issuer")
    .option("--id <approval_id>", "the artifact's id (default: a random UUID); each id approves one call")
    .option(
      "--private-key <file>",
      `sign with this Ed25519 private key (PEM); without it, with the HMAC secret in $${APPROVAL_SECRET_ENV}`,
    )
    .action((flags: ApproveFlags) => {
      process.exitCode = mint(flags);
    });
  approve
    .command("keygen")
    .description("write a new Ed25519 key pair for signing approval artifacts")
    .requiredOption("--private <file>", "where to write the private key (keep it with whoever approves)")
    .requiredOption("--public <file>", "where to write the public key (give it to toolgate: --approval-key)")
    .action((flags: { private: string; public: string }) => {
      const pair = generateKeyPairSync("ed25519");
      writeFileSync(flags.private, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
      writeFileSync(flags.public, pair.publicKey.export({ type: "spki", format: "pem" }));
      process.stderr.write(
        `toolgate: wrote ${flags.private} (private, mode 600) and ${flags.public} (public)\n`,
      );
    });
}

function mint(flags: ApproveFlags): number {
  if (flags.tool === undefined || flags.tool === "") {
    printError("error E_USAGE: approve needs --tool <name>, the tool the artifact approves\n");
    return EXIT_BAD_INPUT;
  }
  let key: ApprovalSigningKey;
  try {
    key = signingKey(flags);
  } catch (error) {
    printError(describeError(error));
    return EXIT_BAD_INPUT;
  }
  const now = Date.now();
  const artifact: Record<string, unknown> = {
    approval_id: flags.id ?? randomUUID(),
    approver: flags.approver,
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(now + flags.ttl * 1000).toISOString(),
    bound_tool: flags.tool,
  };
  if (flags.resource.length === 1) artifact.bound_resource = flags.resource[0];
  else if (flags.resource.length > 1) artifact.bound_resource = [...flags.resource];
  if (flags.scope !== undefined) artifact.scope = flags.scope;
  const oauth = flags.subject !== undefined || flags.issuer !== undefined;
  if (oauth && (flags.subject === undefined || flags.issuer === undefined || flags.principal !== undefined)) {
    printError(
      "error E_USAGE: an OAuth principal is its issuer and subject together: give --subject and --issuer (and not --principal)\n",
    );
    return EXIT_BAD_INPUT;
  }
  if (flags.principal !== undefined) artifact.bound_principal = flags.principal;
  if (oauth) artifact.bound_principal = { iss: flags.issuer, sub: flags.subject };
  try {
    process.stdout.write(JSON.stringify(signApprovalArtifact(artifact, key), null, 2) + "\n");
    return 0;
  } catch (error) {
    printError(describeError(error));
    return EXIT_BAD_INPUT;
  }
}

function signingKey(flags: ApproveFlags): ApprovalSigningKey {
  if (flags.privateKey !== undefined) {
    try {
      return { kind: "ed25519", privateKeyPem: readFileSync(flags.privateKey, "utf8") };
    } catch (error) {
      throw new ToolgateError(
        "E_APPROVAL_KEY",
        `cannot read ${flags.privateKey}: ${(error as Error).message}`,
      );
    }
  }
  const secret = process.env[APPROVAL_SECRET_ENV];
  if (secret === undefined || secret === "") {
    throw new ToolgateError(
      "E_APPROVAL_KEY",
      `nothing to sign with: give --private-key FILE or set ${APPROVAL_SECRET_ENV}`,
      "`toolgate approve keygen --private approver.pem --public approver.pub.pem` makes a key pair",
    );
  }
  return { kind: "hmac", secret };
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError("expected a positive number of seconds");
  }
  return n;
}
