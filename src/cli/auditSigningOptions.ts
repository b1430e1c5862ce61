import { InvalidArgumentError, type Command } from "commander";
import { loadSigningKey } from "../audit/auditKeys.js";
import { CheckpointPublisher } from "../audit/checkpointPublisher.js";
import { CheckpointingSink } from "../audit/checkpointSink.js";
import { JsonlFileSink } from "../audit/jsonlFileSink.js";
import type { AuditSink } from "../audit/sink.js";
import { ToolgateError } from "../engine/errors.js";
import { integer } from "./optionParsers.js";

/**
 * The audit log of wrap and serve, signed when asked: `--audit-signing-key` (with `--checkpoint-every`,
 * `--checkpoint-interval`, `--checkpoint-publish`) turns the JSONL sink into one that appends signed
 * checkpoints, and every answer to a call then carries its receipt (docs/audit.md).
 */

export interface AuditSigningFlags {
  auditSigningKey?: string;
  checkpointEvery?: number;
  /** Milliseconds. */
  checkpointInterval?: number;
  checkpointPublish?: string;
}

export const DEFAULT_CHECKPOINT_EVERY = 1000;
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 60_000;

export function addAuditSigningOptions<C extends Command>(command: C): C {
  command
    .option(
      "--audit-signing-key <file>",
      "with --audit-log: sign the log with this Ed25519 private key (PEM; `toolgate audit keygen` writes one): signed checkpoints in the log, a receipt in every call's answer",
    )
    .option(
      "--checkpoint-every <n>",
      `with --audit-signing-key: a signed checkpoint after this many events (default ${DEFAULT_CHECKPOINT_EVERY})`,
      integer(1, "a positive integer"),
    )
    .option(
      "--checkpoint-interval <duration>",
      `with --audit-signing-key: a signed checkpoint this often when events were written (e.g. 60s, 5m; default ${DEFAULT_CHECKPOINT_INTERVAL_MS / 1000}s)`,
      duration,
    )
    .option(
      "--checkpoint-publish <command>",
      "with --audit-signing-key: run this shell command with each signed checkpoint on stdin (failures are logged and retried; calls never wait)",
    );
  return command;
}

/** `60s`, `5m`, `1h`, `1500ms`, or a number of seconds; at least one second. */
export function duration(value: string): number {
  const m = /^([0-9]+)(ms|s|m|h)?$/.exec(value.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m?.[2] ?? "s"] ?? 1000;
  const ms = m === null ? NaN : Number(m[1]) * unit;
  if (!Number.isSafeInteger(ms) || ms < 1000) {
    throw new InvalidArgumentError("expected a duration of at least 1 s, such as 60s, 5m or 1h");
  }
  return ms;
}

/**
 * The JSONL sink for `--audit-log` (null without one), signed with `--audit-signing-key`. `session` names
 * the checkpoints' writer (wrap's label, `gateway` for serve). Throws ToolgateError: E_USAGE for signing
 * flags without what they need, E_AUDIT_KEY for a key that cannot be used, E_AUDIT_OPEN / E_AUDIT_CHAIN for
 * the log.
 */
export function openAuditLog(
  auditLog: string | undefined,
  flags: AuditSigningFlags,
  session: string,
  log: (line: string) => void,
): AuditSink | null {
  const key = flags.auditSigningKey;
  const needsKey: Array<[unknown, string]> = [
    [flags.checkpointEvery, "--checkpoint-every"],
    [flags.checkpointInterval, "--checkpoint-interval"],
    [flags.checkpointPublish, "--checkpoint-publish"],
  ];
  const stray = needsKey.find(([value]) => value !== undefined);
  if (key === undefined && stray !== undefined) {
    throw new ToolgateError(
      "E_USAGE",
      `${stray[1]} is about signed checkpoints: give the key with --audit-signing-key FILE`,
    );
  }
  if (key !== undefined && auditLog === undefined) {
    throw new ToolgateError(
      "E_USAGE",
      "--audit-signing-key signs the audit log: give the log with --audit-log FILE",
    );
  }
  if (auditLog === undefined) return null;
  if (key === undefined) return new JsonlFileSink(auditLog);
  const signer = loadSigningKey(key);
  const file = new JsonlFileSink(auditLog, { checkpoints: true });
  return new CheckpointingSink(file, {
    signer,
    every: flags.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY,
    intervalMs: flags.checkpointInterval ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
    session,
    publisher:
      flags.checkpointPublish === undefined ? null : new CheckpointPublisher(flags.checkpointPublish, log),
    log,
  });
}
