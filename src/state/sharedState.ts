import type { SessionCounters } from "../engine/model/decision.js";
import { ToolgateError } from "../engine/errors.js";
import type { Settled } from "./settled.js";

/**
 * What replicas of `toolgate serve --http` must agree on, behind one interface with two homes: this
 * process's memory (one gateway, the default) or Redis (`--state redis://…`, any number of replicas).
 * Every operation is atomic in its home, so two replicas racing for the last allowed call cannot both win.
 */
export interface SharedState {
  /** `memory` or the Redis URL without credentials, for messages. */
  readonly where: string;
  /**
   * Counts one request of `principal` (a tool call also as a call) and returns the counts before it, which
   * the limits judge. A principal's counts last while it is active: they are dropped once it has made no
   * request for the idle time.
   */
  count(principal: string, isToolCall: boolean): Settled<SessionCounters>;
  /** Spends `id` until `expiresAt` (ms): `true` when it was free (single use across replicas). */
  claim(id: string, expiresAt: number): Settled<boolean>;
  /**
   * Records which replica owns a 2025-era session, for `ttlMs`; renewed while in use. `owner`: the record
   * as the replicas write it (its URL and an HMAC made with the state secret, transports/replicaTrust.ts),
   * kept as given: the state is not trusted to say who owns what.
   */
  own(sessionId: string, owner: string, ttlMs: number): Promise<void>;
  /** The record as written, `null` when none is (expired, closed, or never opened). */
  ownerOf(sessionId: string): Promise<string | null>;
  disown(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

/** The state could not be reached (or disagrees): anything that needs it is refused, never guessed. */
export class StateUnavailable extends ToolgateError {
  constructor(message: string) {
    super(
      "E_STATE_UNAVAILABLE",
      message,
      "check that the state store (--state) is running and reachable; toolgate retries on its own",
    );
    this.name = "StateUnavailable";
  }
}
