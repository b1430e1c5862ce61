import type { StateOpenCode } from "../engine/model/codes.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { StateUrl } from "../engine/model/stateUrl.js";
import { ToolgateError } from "../engine/errors.js";
import type { Settled } from "./settled.js";

/**
 * What replicas of `toolgate serve --http` must agree on, behind one interface with a home per backend:
 * this process's memory (one gateway, the default) or Redis (`--state redis://…`, any number of replicas).
 * Every operation is atomic in its home, so two replicas racing for the last allowed call cannot both win.
 * Backends are opened by URL scheme (stateRegistry.ts); each passes test/contract/sharedState.test.ts.
 */
export interface SharedState {
  /** `memory` or the store's URL without credentials, for messages. */
  readonly where: string;
  /**
   * Whether other processes see what this one writes (replicas of one gateway). When they do, serve keeps
   * a directory of which replica owns each 2025-era session in it; when not, there are no replicas.
   */
  readonly sharedByReplicas: boolean;
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
  /** Resolves when the store answers now, rejects (StateUnavailable) when not; absent: it always answers. */
  ping?(): Promise<void>;
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

/** How serve opens its state; the backend reads what it needs (its secret, its CA) from `env`. */
export interface OpenStateOptions {
  /** A principal's counts are dropped once it has been idle this long. */
  idleMs: number;
  env: NodeJS.ProcessEnv;
  /** Lines for the operator: where the state is, and when it becomes unreachable or is back. */
  log: (line: string) => void;
  /** How the URL was given, for messages: `--state`, `state: at /etc/toolgate/config.yaml:3`. */
  givenAs: string;
}

/**
 * Why a store cannot be used, before anything starts: its stable code, what is wrong (naming where the URL
 * was given and the store without credentials), and how to fix it.
 */
export interface StateRefusal {
  code: StateOpenCode;
  why: string;
  hint: string;
}

/** A store ready to use, or why it cannot be used. */
export type OpenedState = { state: SharedState } | StateRefusal;

/**
 * One kind of store, registered by its URL scheme(s) in stateRegistry.ts. `open` does everything the
 * backend needs before the store is used (connecting, checking the replicas agree, saying where it is), so
 * nothing outside src/state calls anything but SharedState.
 */
export interface StateBackend {
  open(url: StateUrl, options: OpenStateOptions): Promise<OpenedState>;
}
