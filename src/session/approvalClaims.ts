/**
 * Single use of signed approval artifacts: an artifact's `approval_id` approves one call, then it is spent,
 * so a captured artifact cannot be replayed (until it expires, after which it is refused anyway). One store
 * per process, shared by every session of it; replicas share theirs in Redis.
 */
export interface ApprovalClaims {
  /** `true`: the id was free and is now spent until `expiresAt` (ms); `false`: it was spent before. */
  claim(approvalId: string, expiresAt: number): boolean;
}

/** Spent ids in memory, each kept until its artifact expires (expired ones are dropped as new ones come). */
export class MemoryApprovalClaims implements ApprovalClaims {
  private readonly spent = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(approvalId: string, expiresAt: number): boolean {
    const now = this.now();
    if (this.spent.size > 0 && this.spent.size % 1024 === 0) {
      for (const [id, until] of this.spent) if (until <= now) this.spent.delete(id);
    }
    const until = this.spent.get(approvalId);
    if (until !== undefined && until > now) return false;
    this.spent.set(approvalId, Math.max(expiresAt, now + 1));
    return true;
  }
}
