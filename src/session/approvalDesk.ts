import { randomUUID } from "node:crypto";
import { mayAnswer, type Operator, type Principal } from "../engine/model/principal.js";
import type { ApprovalOutcome } from "./approvalQuestion.js";

/**
 * Approvals out of band: a call under `approval_required` from a client that cannot ask its person
 * (no form-mode elicitation) waits here, bounded by the approval timeout, until an operator with the right
 * to answer it (an approver of the dashboard, never the principal that made the call, and only for the
 * principals their `approves:` names) approves or denies it. Each answer records the approver's principal.
 * Bounded per principal and in all: one principal filling its share cannot make another's call fail.
 */

export interface PendingApproval {
  id: string;
  /** Who asked: the principal that made the call, and its session. */
  principal: Principal;
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

export interface DeskLimits {
  /** Most calls waiting at once, all principals together. */
  total: number;
  /** Most calls of one principal waiting at once. */
  perPrincipal: number;
}

export const DEFAULT_DESK_LIMITS: DeskLimits = { total: 256, perPrincipal: 32 };

export type Answered = { ok: true } | { ok: false; status: 403 | 404; why: string };

export class ApprovalDesk {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly limits: DeskLimits = DEFAULT_DESK_LIMITS) {}

  /** Calls waiting now that `approver` may answer, oldest first (never their own, never others'). */
  pendingFor(approver: Operator): PendingApproval[] {
    return [...this.waiting.values()]
      .filter((w) => mayAnswer(approver.principal, approver.rights, w.principal).ok)
      .map(({ settle: _settle, ...shown }) => shown);
  }

  /** How many calls wait, all principals together (the dashboard's status; no names). */
  get size(): number {
    return this.waiting.size;
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
    const own = [...this.waiting.values()].filter((w) => w.principal.key === request.principal.key).length;
    if (own >= this.limits.perPrincipal) {
      return Promise.resolve({
        approved: false,
        outcome: "error",
        detail: `${own} calls of ${request.principal.name} already wait for approval in the dashboard (at most ${this.limits.perPrincipal} per principal)`,
      });
    }
    if (this.waiting.size >= this.limits.total) {
      return Promise.resolve({
        approved: false,
        outcome: "error",
        detail: `${this.waiting.size} calls already wait for approval in the dashboard (at most ${this.limits.total})`,
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

  /**
   * An approver's answer. Refused (403) when they may not answer this call (their own, a principal their
   * `approves:` does not name, a viewer); 404 when it no longer waits. Ids are random and shown only to
   * those who may answer, so the 403 is reached only by someone who was given the id.
   */
  answer(id: string, approved: boolean, approver: Operator): Answered {
    const waiting = this.waiting.get(id);
    if (waiting === undefined)
      return { ok: false, status: 404, why: "that call no longer waits (answered, timed out or cancelled)" };
    const may = mayAnswer(approver.principal, approver.rights, waiting.principal);
    if (!may.ok) return { ok: false, status: 403, why: may.why };
    const who = approver.principal.name;
    waiting.settle(
      approved
        ? { approved: true, by: who }
        : { approved: false, outcome: "decline", detail: `denied by ${who} in the dashboard` },
    );
    return { ok: true };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
