import type { ConfigReloadEvent } from "./events.js";
import type { AuditSink } from "./sink.js";

export interface ReloadOutcome {
  /** The audit log's session label (wrap's --label; `gateway` for serve, whose reload is every session's). */
  session: string;
  trigger: string;
  oldDigest: string | null;
  /** Applied: the digest now in force; refused: null (what was read is not in force). */
  newDigest: string | null;
  /** Refused: every error, as printed. */
  errors?: readonly string[];
}

/** The audit event of one reload: applied when it has no errors, else refused (the old policy stays). */
export function configReloadEvent(o: ReloadOutcome, now: Date = new Date()): ConfigReloadEvent {
  const refused = o.errors !== undefined;
  return {
    time: now.toISOString(),
    session: o.session,
    policy_digest: refused ? o.oldDigest : o.newDigest,
    request_id: null,
    event: "config_reload",
    result: refused ? "refused" : "applied",
    trigger: o.trigger,
    old_policy_digest: o.oldDigest,
    new_policy_digest: refused ? null : o.newDigest,
    code: refused ? "E_RELOAD_REFUSED" : null,
    ...(refused ? { errors: [...o.errors!] } : {}),
  };
}

/** A digest as a log line shows it: its first 12 hex digits, or `none` without a policy. */
export function shortDigest(digest: string | null): string {
  return digest === null ? "none" : digest.slice(0, 12);
}

/**
 * Writes a reload's event, and in a signed log a checkpoint right after it (what was decided under the old
 * configuration is then signed off). A sink that fails is said on stderr (the reload stands either way).
 */
export function recordReload(
  audit: AuditSink | null,
  event: ConfigReloadEvent,
  log: (line: string) => void,
): void {
  try {
    audit?.write(event);
    audit?.checkpoint?.("reload");
  } catch (error) {
    log(
      `E_AUDIT_WRITE: the reload could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The one line a refused reload prints after its errors; `inForce` names what stays. */
export function reloadRefusedLine(trigger: string, errors: number, inForce: string): string {
  return `E_RELOAD_REFUSED: configuration reload (${trigger}) refused: ${errors} ${errors === 1 ? "error" : "errors"}; ${inForce} stays`;
}
