import { MemoryState } from "../state/memoryState.js";
import type { Settled } from "../state/settled.js";

/**
 * Single use of signed approval artifacts: an artifact's `approval_id` approves one call, then it is spent,
 * so a captured artifact cannot be replayed (until it expires, after which it is refused anyway). One store
 * per process, shared by every session of it; replicas share theirs in Redis (state/redisState.ts).
 */
export interface ApprovalClaims {
  /**
   * `true`: the id was free and is now spent until `expiresAt` (ms); `false`: it was spent before. Rejects
   * (StateUnavailable) when the store cannot be reached: the call is then refused, never let through.
   */
  claim(approvalId: string, expiresAt: number): Settled<boolean>;
}

/** Spent ids in this process's memory (wrap, and serve without --state). */
export class MemoryApprovalClaims implements ApprovalClaims {
  private readonly state: MemoryState;

  constructor(now: () => number = Date.now) {
    this.state = new MemoryState(0, now);
  }

  claim(approvalId: string, expiresAt: number): boolean {
    return this.state.claim(approvalId, expiresAt);
  }
}
