import type { SessionCounters } from "../engine/model/decision.js";
import type { SharedState, StateBackend } from "./sharedState.js";

interface Counts extends SessionCounters {
  lastSeen: number;
}

/** The state of one process: the default, when one gateway serves every client. */
export class MemoryState implements SharedState {
  readonly where = "memory";
  readonly sharedByReplicas = false;
  private readonly counts = new Map<string, Counts>();
  private readonly spent = new Map<string, number>();
  private readonly owners = new Map<string, { owner: string; until: number }>();

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  count(principal: string, isToolCall: boolean): SessionCounters {
    const now = this.now();
    let counts = this.counts.get(principal);
    if (counts === undefined || now - counts.lastSeen > this.idleMs) {
      counts = { requests: 0, toolCalls: 0, lastSeen: now };
      this.counts.set(principal, counts);
    }
    const before = { requests: counts.requests, toolCalls: counts.toolCalls };
    counts.requests++;
    if (isToolCall) counts.toolCalls++;
    counts.lastSeen = now;
    return before;
  }

  claim(id: string, expiresAt: number): boolean {
    const now = this.now();
    // Bounded: expired ids are dropped as new ones come.
    if (this.spent.size > 0 && this.spent.size % 1024 === 0) {
      for (const [spentId, until] of this.spent) if (until <= now) this.spent.delete(spentId);
    }
    const until = this.spent.get(id);
    if (until !== undefined && until > now) return false;
    this.spent.set(id, Math.max(expiresAt, now + 1));
    return true;
  }

  own(sessionId: string, owner: string, ttlMs: number): Promise<void> {
    this.owners.set(sessionId, { owner, until: this.now() + ttlMs });
    return Promise.resolve();
  }

  ownerOf(sessionId: string): Promise<string | null> {
    const found = this.owners.get(sessionId);
    return Promise.resolve(found !== undefined && found.until > this.now() ? found.owner : null);
  }

  disown(sessionId: string): Promise<void> {
    this.owners.delete(sessionId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** `memory`: nothing to connect to, nothing to agree on. */
export const memoryBackend: StateBackend = {
  open: (_url, options) => Promise.resolve({ state: new MemoryState(options.idleMs) }),
};
