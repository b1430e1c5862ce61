import type { ConfigReloadEvent } from "./events.js";

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
