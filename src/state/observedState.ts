import type { SessionCounters } from "../engine/model/decision.js";
import type { Settled } from "./settled.js";
import type { SharedState } from "./sharedState.js";

/**
 * The state store with each failed operation told to `failed` (the gateway's
 * `toolgate_state_store_errors_total`), and `ping` bounded: readiness asks it and must get an answer soon.
 * Nothing else changes: a failure still rejects, and the caller still refuses what needed it.
 */
export function observedState(state: SharedState, failed: () => void, pingTimeoutMs = 1000): SharedState {
  const watched = <R>(result: Settled<R>): Settled<R> => {
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        failed();
        throw error;
      });
    }
    return result;
  };
  const watchedAsync = <R>(result: Promise<R>): Promise<R> =>
    result.catch((error: unknown) => {
      failed();
      throw error;
    });
  return {
    where: state.where,
    sharedByReplicas: state.sharedByReplicas,
    count: (principal, isToolCall): Settled<SessionCounters> =>
      guard(() => watched(state.count(principal, isToolCall)), failed),
    claim: (id, expiresAt) => guard(() => watched(state.claim(id, expiresAt)), failed),
    own: (sessionId, owner, ttlMs) => watchedAsync(state.own(sessionId, owner, ttlMs)),
    ownerOf: (sessionId) => watchedAsync(state.ownerOf(sessionId)),
    disown: (sessionId) => watchedAsync(state.disown(sessionId)),
    ping: async () => {
      if (state.ping === undefined) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${pingTimeoutMs} ms`)), pingTimeoutMs);
      });
      try {
        await Promise.race([state.ping(), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => state.close(),
  };
}

/** A store that throws instead of rejecting is counted too. */
function guard<R>(run: () => Settled<R>, failed: () => void): Settled<R> {
  try {
    return run();
  } catch (error) {
    failed();
    throw error;
  }
}
