import type { AuditRule } from "../audit/events.js";
import type { Outcome } from "./records.js";
import type { Redecided, Verdict } from "./redecide.js";

/**
 * The verdict diff of a replay, counted as the events stream past: one entry per server × tool × principal
 * and verdict, never one per event, so a log of any length is tallied in memory bounded by its catalog.
 * Pure: the command feeds it and renders what `report` returns.
 */

/** Calls whose verdict changed, for one server, tool, principal and the code and rule that now decide. */
export interface ChangedCalls {
  server: string | null;
  tool: string;
  principal: string;
  count: number;
  /**
   * newly_denied: the candidate's refusal code and rule. newly_allowed: the code and rule that refused the
   * calls when they were recorded (the candidate's admitting rule is `allowed_by`).
   */
  code: string | null;
  rule: AuditRule | null;
  /** newly_allowed only: the candidate's rule that admits them (`null`: no rule names them). */
  allowed_by?: AuditRule | null;
  /** Of `count`, the calls re-decided by the name stage only (their arguments were not recorded). */
  name_only: number;
}

export interface ToolChange {
  server: string | null;
  tool: string;
  principal: string;
}

export interface ReplayDiff {
  /** Every call re-decided (also those unchanged) and every list read. */
  calls: number;
  lists: number;
  newly_denied: ChangedCalls[];
  newly_allowed: ChangedCalls[];
  newly_hidden: ToolChange[];
  newly_visible: ToolChange[];
  /** Calls whose verdict (forwarded or refused) is the same under the candidate. */
  unchanged: number;
  /** Calls re-decided by name only: recorded without `--audit-args` (only their digest is in the log). */
  name_only: number;
}

/** Whether a tool of a server is visible under the candidate, by its name. */
export type VisibleUnder = (server: string | null, tool: string) => boolean;

const SEP = "\u0000";

export class ReplayTally {
  private calls = 0;
  private lists = 0;
  private unchanged = 0;
  private nameOnly = 0;
  private readonly denied = new Map<string, ChangedCalls>();
  private readonly allowed = new Map<string, ChangedCalls>();
  /** server × tool × principal → whether the recorded policy showed the tool. */
  private readonly seen = new Map<string, { change: ToolChange; shown: boolean }>();

  /** A call as recorded (`was`) and as the candidate decides it (`now`). */
  call(where: ToolChange, was: Verdict, now: Redecided): void {
    this.calls++;
    this.saw(where, was.outcome !== "hidden");
    const byName = now === "name-only";
    if (byName) this.nameOnly++;
    // By name only, a tool the name stage admits keeps its recorded verdict unless the name stage hid it
    // before: it now reaches the call stage, which is counted as allowed (and flagged name_only).
    const verdict: Verdict = byName
      ? was.outcome === "hidden"
        ? { outcome: "allow", code: null, rule: null }
        : was
      : now;
    if (refused(was.outcome) === refused(verdict.outcome)) {
      this.unchanged++;
      return;
    }
    if (refused(verdict.outcome)) {
      this.add(this.denied, where, verdict.code, verdict.rule, byName);
    } else {
      this.add(this.allowed, where, was.code, was.rule, byName).allowed_by = verdict.rule;
    }
  }

  /** A list as recorded: the tools it hid (the tools it showed are not named in the log). */
  list(where: { server: string | null; principal: string }, hidden: readonly string[]): void {
    this.lists++;
    for (const tool of hidden) this.saw({ ...where, tool }, false);
  }

  report(visible: VisibleUnder): ReplayDiff {
    const newlyHidden: ToolChange[] = [];
    const newlyVisible: ToolChange[] = [];
    for (const { change, shown } of this.seen.values()) {
      const now = visible(change.server, change.tool);
      if (shown && !now) newlyHidden.push(change);
      if (!shown && now) newlyVisible.push(change);
    }
    return {
      calls: this.calls,
      lists: this.lists,
      newly_denied: sorted([...this.denied.values()]),
      newly_allowed: sorted([...this.allowed.values()]),
      newly_hidden: sorted(newlyHidden),
      newly_visible: sorted(newlyVisible),
      unchanged: this.unchanged,
      name_only: this.nameOnly,
    };
  }

  /** A tool known to exist and whether it was shown; a later call that reached the server says it was. */
  private saw(change: ToolChange, shown: boolean): void {
    const key = `${change.server ?? ""}${SEP}${change.tool}${SEP}${change.principal}`;
    const known = this.seen.get(key);
    if (known === undefined) this.seen.set(key, { change, shown });
    else if (shown) known.shown = true;
  }

  private add(
    into: Map<string, ChangedCalls>,
    where: ToolChange,
    code: string | null,
    rule: AuditRule | null,
    byName: boolean,
  ): ChangedCalls {
    const key = `${where.server ?? ""}${SEP}${where.tool}${SEP}${where.principal}${SEP}${code ?? ""}${SEP}${ruleKey(rule)}`;
    let entry = into.get(key);
    if (entry === undefined) {
      entry = {
        server: where.server,
        tool: where.tool,
        principal: where.principal,
        count: 0,
        code,
        rule,
        name_only: 0,
      };
      into.set(key, entry);
    }
    entry.count++;
    if (byName) entry.name_only++;
    return entry;
  }
}

function refused(outcome: Outcome): boolean {
  return outcome !== "allow";
}

function ruleKey(rule: AuditRule | null): string {
  return rule === null ? "" : `${rule.layer}${SEP}${rule.kind}${SEP}${rule.value}`;
}

function sorted<T extends ToolChange>(list: T[]): T[] {
  const text = (c: ToolChange) => `${c.server ?? ""}${SEP}${c.tool}${SEP}${c.principal}`;
  return list.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}
