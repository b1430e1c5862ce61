import { createHash, randomBytes } from "node:crypto";
import type { Operator } from "../engine/model/principal.js";
import { secretsEqual } from "./guard.js";

/**
 * Signed-in browsers. The cookie holds only a random id; what it grants lives here, so a session ends the
 * moment it is dropped (sign-out, expiry, a restart) and a stolen cookie cannot be extended by its holder. The
 * map is bounded: when full, the least recently used session goes, so sign-ins cannot exhaust memory.
 */

export interface DashboardSession {
  /** Sent in a hidden field of every form; a POST without it is refused. */
  csrf: string;
  /** Who signed in and what they may do here; their principal is recorded with each answer they give. */
  operator: Operator;
  created: number;
  lastSeen: number;
  /** Ends what this session keeps open (the live stream) when the session ends. */
  readonly onEnd: Set<() => void>;
}

export interface SessionLimits {
  /** Most sessions kept at once. */
  max: number;
  /** A session unused this long has ended. */
  idleMs: number;
  /** A session this old has ended, however busy. */
  maxAgeMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  max: 64,
  idleMs: 30 * 60_000,
  maxAgeMs: 12 * 3_600_000,
};

/** 32 random bytes as base64url: unguessable, and safe in a cookie and an attribute as it is. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

// Keyed by a digest of the id: looking a session up then takes no time that depends on how much of a
// guessed id matches a real one.
function key(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("base64url");
}

export class SessionStore {
  private readonly sessions = new Map<string, DashboardSession>();

  constructor(
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new session: its id (for the cookie) and its state. */
  create(operator: Operator): { id: string; session: DashboardSession } {
    this.sweep();
    while (this.sessions.size >= this.limits.max) {
      // Map order is insertion order and every use re-inserts: the first entry is the least recently used.
      this.end(this.sessions.keys().next().value!);
    }
    const id = randomToken();
    const t = this.now();
    const session = { csrf: randomToken(), operator, created: t, lastSeen: t, onEnd: new Set<() => void>() };
    this.sessions.set(key(id), session);
    return { id, session };
  }

  /** The live session of a cookie value, its use recorded; null when unknown or ended. */
  get(id: string | undefined): DashboardSession | null {
    if (id === undefined || id === "") return null;
    const k = key(id);
    const session = this.sessions.get(k);
    if (session === undefined) return null;
    const t = this.now();
    if (this.expired(session, t)) {
      this.end(k);
      return null;
    }
    session.lastSeen = t;
    this.sessions.delete(k);
    this.sessions.set(k, session);
    return session;
  }

  /** Whether the session is still live, without counting this as a use (a stream's heartbeat asks). */
  live(session: DashboardSession): boolean {
    const k = [...this.sessions].find(([, s]) => s === session)?.[0];
    if (k === undefined) return false;
    if (!this.expired(session, this.now())) return true;
    this.end(k);
    return false;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.end(key(id));
  }

  private expired(s: DashboardSession, t: number): boolean {
    return t - s.lastSeen > this.limits.idleMs || t - s.created > this.limits.maxAgeMs;
  }

  private end(k: string): void {
    const session = this.sessions.get(k);
    if (session === undefined) return;
    this.sessions.delete(k);
    for (const close of session.onEnd) close();
    session.onEnd.clear();
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, s] of this.sessions) if (this.expired(s, t)) this.end(k);
  }
}

/** The form's CSRF field against the session's, in constant time; a missing field never matches. */
export function csrfValid(session: DashboardSession, presented: string | null | undefined): boolean {
  return typeof presented === "string" && presented !== "" && secretsEqual(presented, session.csrf);
}
