/**
 * Which HTTP session makes room for a new one (pure). Each token may hold at most `perToken` sessions and
 * all together `total`; a full quota is freed by evicting the idlest session that nobody is using: no open
 * event stream and no request in progress. Its client gets 404 on its next request and re-initializes, as
 * the Streamable HTTP transport allows. Abandoned sessions (an SDK client's close() sends no DELETE) thus
 * never lock anyone out, and one token cannot take every session: it evicts its own first.
 */
export interface SessionSlot<T> {
  id: string;
  token: T;
  lastSeen: number;
  /** An open GET stream or a request still waiting for its answer. */
  inUse: boolean;
}

export type Admission =
  | { kind: "admit"; evict: string | null; why: string }
  | { kind: "refuse"; status: 429 | 503; message: string };

export interface AdmissionLimits {
  total: number;
  perToken: number;
}

export function admitSession<T>(
  slots: readonly SessionSlot<T>[],
  token: T,
  tokenLabel: string,
  limits: AdmissionLimits,
): Admission {
  const own = slots.filter((s) => s.token === token);
  // A share as large as the whole is no quota of its own: the gateway's limit speaks (503).
  if (own.length >= limits.perToken && limits.perToken < limits.total) {
    const idlest = idlestUnused(own);
    if (idlest === null) {
      return {
        kind: "refuse",
        status: 429,
        message: `Too Many Requests: ${tokenLabel} has ${own.length} sessions open and in use (--max-sessions-per-token ${limits.perToken}); end one with DELETE`,
      };
    }
    return {
      kind: "admit",
      evict: idlest.id,
      why: `${tokenLabel} is at --max-sessions-per-token ${limits.perToken}`,
    };
  }
  if (slots.length >= limits.total) {
    const idlest = idlestUnused(slots);
    if (idlest === null) {
      return {
        kind: "refuse",
        status: 503,
        message: `Service Unavailable: ${slots.length} sessions are open and in use (--max-sessions ${limits.total})`,
      };
    }
    return {
      kind: "admit",
      evict: idlest.id,
      why: `${slots.length} sessions are open (--max-sessions ${limits.total})`,
    };
  }
  return { kind: "admit", evict: null, why: "" };
}

function idlestUnused<T>(slots: readonly SessionSlot<T>[]): SessionSlot<T> | null {
  let found: SessionSlot<T> | null = null;
  for (const slot of slots) {
    if (slot.inUse) continue;
    if (found === null || slot.lastSeen < found.lastSeen) found = slot;
  }
  return found;
}

/** The default quota per token: an equal share of all sessions, at least one. */
export function defaultPerTokenSessions(total: number, tokens: number): number {
  return Math.max(1, Math.floor(total / Math.max(1, tokens)));
}
