import type { AuditEvent } from "../audit/events.js";
import { markup, type SafeHtml } from "./html.js";

/**
 * The live view's counts, from the same events as its table: what kind of decision an event is, and the
 * counts of the last five minutes as the page first shows them. The page's script then keeps counting the
 * events the stream brings, and lets the server's ones age out of the window (it is told their ages, not
 * their times, so the browser's clock need not agree with the gateway's).
 *
 * Calls are allow, deny or hidden (a call to a tool the policy hides; `would-*` under `--dry-run` count as
 * what they would have been); a refused request other than a call (a session limit) is a deny. A
 * `tools/list` answer is none of these: it decides nothing about a call, it filters the catalog. Lists are
 * counted apart, with how many tools they hid, and never take part in the allow/deny/hidden proportions.
 */

/** `config`: a configuration reload, shown in the feed and counted as no decision. */
export type LiveKind = "allow" | "deny" | "hidden" | "list" | "config";

export const LIVE_WINDOW_MS = 300_000;

export function liveKind(event: AuditEvent): LiveKind {
  // A checkpoint never reaches the live feed (only the JSONL log has them); counted as no decision.
  if (event.event === "config_reload" || event.event === "checkpoint") return "config";
  if (event.event === "tools/list" || "hidden_items" in event) return "list";
  if (event.event === "request") return "deny";
  switch (event.decision) {
    case "allow":
      return "allow";
    case "hidden":
    case "would-hide":
      return "hidden";
    default:
      return "deny";
  }
}

/** How many tools an event hid: a list's `hidden`, else 0. */
export function hiddenBy(event: AuditEvent): number {
  return event.event === "tools/list" || "hidden_items" in event ? event.hidden : 0;
}

export interface LiveCounts {
  allow: number;
  deny: number;
  hidden: number;
  lists: number;
  /** Tools hidden by those lists, summed. */
  listHidden: number;
}

/** One event of the window: its age in ms when the page was made, its kind, what it hid. */
export interface RecentEvent {
  age: number;
  kind: LiveKind;
  hid: number;
}

/** The events of the last five minutes (`events` oldest first, as the feed keeps them). */
export function recentEvents(events: readonly AuditEvent[], now: number): RecentEvent[] {
  const out: RecentEvent[] = [];
  for (const event of events) {
    const at = Date.parse(event.time);
    // An event without a readable time is counted as new: it is in the feed, so it is recent.
    const age = Number.isNaN(at) ? 0 : Math.max(0, now - at);
    if (age <= LIVE_WINDOW_MS) out.push({ age, kind: liveKind(event), hid: hiddenBy(event) });
  }
  return out;
}

export function countOf(recent: readonly RecentEvent[]): LiveCounts {
  const n: LiveCounts = { allow: 0, deny: 0, hidden: 0, lists: 0, listHidden: 0 };
  for (const e of recent) {
    if (e.kind === "config") continue;
    if (e.kind === "list") {
      n.lists++;
      n.listHidden += e.hid;
    } else n[e.kind]++;
  }
  return n;
}

export function listText(n: LiveCounts): string {
  return `tools/list ${n.lists} (${n.listHidden} ${n.listHidden === 1 ? "tool" : "tools"} hidden)`;
}

/**
 * The counts element: the bars as text (the widths need the script: the CSP allows no inline style), and
 * the window's events as `age:kind:hid` words for the script to go on from.
 */
export function countsHtml(recent: readonly RecentEvent[]): SafeHtml {
  const n = countOf(recent);
  const words = recent.map((e) => `${e.age}:${e.kind}:${e.hid}`).join(" ");
  return markup`<div id="counts" class="counts" aria-live="polite" data-recent="${words}">
      <div class="bar bar-allow">allow ${n.allow}</div><div class="bar bar-deny">deny ${n.deny}</div><div class="bar bar-hidden">hidden ${n.hidden}</div>
      <div class="lists">${listText(n)}</div>
    </div>`;
}
