import type { SessionDirectory } from "./replicaForward.js";

/** What the renewal reads of a live 2025-era session (legacySessions.ts's LiveSession). */
export interface OwnedSession {
  /** When its last request came. */
  lastSeen: number;
  /** When the directory last heard that this replica owns it (written here). */
  ownedAt: number;
  /** Requests still waiting for their answer (a long call). */
  readonly transport: { readonly busy: boolean };
}

/** How often ownership records are renewed: a third of the idle timeout (at least 250 ms). */
export function renewalPeriodMs(idleTimeoutMs: number): number {
  return Math.max(250, Math.floor(idleTimeoutMs / 3));
}

/**
 * How long an ownership record lasts: the idle timeout plus one renewal period, so a session's record
 * outlives the session (closed once idle for the idle timeout) even when its last request came just after
 * a renewal. A record that outlives its session does no harm: a replica that closes a session deletes its
 * record, and one that died is unreachable (the client gets 404 either way).
 */
export function ownershipTtlMs(idleTimeoutMs: number): number {
  return idleTimeoutMs + renewalPeriodMs(idleTimeoutMs);
}

/**
 * Keeps the directory's ownership records of this replica's sessions alive: every renewal period, the
 * record of each session used since its last renewal, or busy now with a call that has not been answered
 * yet (however long it runs, with no new request coming), is written again. Requests add no writes of
 * their own. Returns the function that stops it.
 */
export function startOwnershipRenewal(
  directory: SessionDirectory,
  idleTimeoutMs: number,
  sessions: ReadonlyMap<string, OwnedSession>,
): () => void {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (!session.transport.busy && session.lastSeen <= session.ownedAt) continue;
      // Unreachable, the state says so once (state/redisState.ts), and the next round tries again.
      void directory.own(id, directory.self, ownershipTtlMs(idleTimeoutMs)).then(
        () => void (session.ownedAt = Math.max(session.ownedAt, now)),
        () => undefined,
      );
    }
  }, renewalPeriodMs(idleTimeoutMs));
  timer.unref();
  return () => clearInterval(timer);
}
