import { randomUUID } from "node:crypto";
import type { ApprovalOutcome } from "./approvalQuestion.js";

/**
 * Approvals out of band: a call under `approval_required` from a client that cannot ask its person
 * (no form-mode elicitation) waits here, bounded by the approval timeout, until someone with the dashboard
 * approves or denies it. Each answer says who gave it. Bounded: at most MAX_PENDING calls wait at once; a
 * call beyond that is refused at once, never queued without limit.
 */

export interface PendingApproval {
  id: string;
  /** Who asked: the client (token or OAuth principal) and its session. */
  client: string;
  session: string;
  server: string | null;
  tool: string;
  /** The question as toolgate words it (tool, server, the arguments as redaction leaves them). */
  message: string;
  createdAt: number;
  expiresAt: number;
}

interface Waiting extends PendingApproval {
  settle(outcome: ApprovalOutcome): void;
}

const MAX_PENDING = 256;

export class ApprovalDesk {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<() => void>();

  /** Calls waiting now, oldest first. */
  pending(): PendingApproval[] {
    return [...this.waiting.values()].map(({ settle: _settle, ...shown }) => shown);
  }

  /** Told whenever a call starts or stops waiting (the dashboard's live list). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits for a person's answer: approved, denied, the timeout, or the client giving up. */
  wait(
    request: Omit<PendingApproval, "id" | "createdAt" | "expiresAt">,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    if (this.waiting.size >= MAX_PENDING) {
      return Promise.resolve({
        approved: false,
        outcome: "error",
        detail: `${MAX_PENDING} calls already wait for approval`,
      });
    }
    const id = randomUUID();
    const now = Date.now();
    return new Promise((resolve) => {
      const done = (outcome: ApprovalOutcome): void => {
        if (!this.waiting.delete(id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", aborted);
        this.changed();
        resolve(outcome);
      };
      const timer = setTimeout(
        () => done({ approved: false, outcome: "timeout", detail: "nobody answered in the dashboard" }),
        timeoutMs,
      );
      const aborted = (): void => done({ approved: false, outcome: "client-cancelled" });
      signal.addEventListener("abort", aborted, { once: true });
      this.waiting.set(id, { ...request, id, createdAt: now, expiresAt: now + timeoutMs, settle: done });
      this.changed();
      if (signal.aborted) aborted();
    });
  }

  /** A person's answer; `false` when the call no longer waits (answered, timed out, cancelled). */
  answer(id: string, approved: boolean, who: string): boolean {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return false;
    waiting.settle(
      approved
        ? { approved: true, by: who }
        : { approved: false, outcome: "decline", detail: `denied by ${who} in the dashboard` },
    );
    return true;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
